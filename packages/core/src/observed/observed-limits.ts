/**
 * The bounds of observed output shapes: of one walk of an answer, and of what is kept per tool.
 * Every number is a trade-off between what an agent learns and what a hostile or huge answer may
 * cost the host's main thread and the catalog.
 */
export interface ObservedLimits {
  /**
   * Containers (objects, arrays) deeper than this are `{}` (anything). 8: results of real APIs
   * rarely nest their fields deeper (an issue's `user.login` is 2, a page's blocks 4–5), and a
   * declaration deeper than that is past what the types budget writes anyway.
   */
  readonly maxDepth: number;
  /**
   * An object with more distinct keys than this (in one answer, or merged across answers) is a
   * map. 64: the objects of common APIs' results have fewer fields (an issue about 30, a message
   * 20), while lookup tables keyed by names have many; one object of 64 fields is ~1.5 KB of
   * declaration already.
   */
  readonly maxProperties: number;
  /**
   * Most shape nodes kept per tool (a larger merge is cut at the depth that fits). 256: about
   * 10 KB of JSON per tool in the catalog, and ~5 KB of declaration, about the per-tool types
   * budget (4 KiB), which stubs the rest.
   */
  readonly maxNodes: number;
  /** Most variants of a union before it becomes `{}`. 4: `string | number | object | null`. */
  readonly maxVariants: number;
  /**
   * Values one walk visits before it stops; an answer the walk could not finish with any of
   * `samples` is skipped. 1,000: under a millisecond of the main thread.
   */
  readonly maxVisits: number;
  /**
   * How many elements of each array (and values of each map) a walk looks at, one try after the
   * other while the walk runs past `maxVisits`: 8, then 2, then 1 (spread over the array, the
   * first and the last among them).
   */
  readonly samples: readonly number[];
  /** Keys longer than this are data (a key naming a URL, a sentence, a hash). 64. */
  readonly maxKeyLength: number;
}

/** The limits cyrnel uses (see {@link ObservedLimits} for why each). */
export const OBSERVED_LIMITS: ObservedLimits = {
  maxDepth: 8,
  maxProperties: 64,
  maxNodes: 256,
  maxVariants: 4,
  maxVisits: 1_000,
  samples: [8, 2, 1],
  maxKeyLength: 64,
};
