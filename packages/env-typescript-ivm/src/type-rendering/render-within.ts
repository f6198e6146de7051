/** A rendering and what its text refers to. */
export interface Rendering {
  readonly text: string;
  /** The `$ref`s the text names (shared schemas to declare). */
  readonly refs: readonly string[];
  /** Those of `refs` outside object members and array elements (the parts of an alias or intersection). */
  readonly direct: readonly string[];
  /** The stubs the text holds, by name. */
  readonly stubs: readonly string[];
  /** The stub depth it was rendered with (undefined: none). */
  readonly depth: number | undefined;
  /** The `maxLength` it was rendered with (undefined: the default). */
  readonly maxLength: number | undefined;
}

/**
 * Renders at a stub depth (undefined: no stubs) into a fresh record of refs and stubs; `squeeze`
 * from 0 (as usual) up to `squeezes` writes shorter text by other means (shorter comments);
 * `maxLength`, when given, is `renderSchemaType`'s: what lies beyond renders as `unknown`.
 */
export type RenderAtDepth = (
  depth: number | undefined,
  record: { readonly refs: string[]; readonly stubs: string[]; readonly direct: string[] },
  squeeze: number,
  maxLength: number | undefined,
) => string;

// Objects nest no deeper than schema-type's own limit, so deeper stub depths change nothing.
const MAX_STUB_DEPTH = 24;
// What must be written is written up to this many shares: a schema whose directly used fields are
// wider than that (hundreds of objects of hundreds of members) is cut there, its rest `unknown`.
const HARD_LIMIT_SHARES = 8;

function renderAt(
  render: RenderAtDepth,
  depth: number | undefined,
  squeeze: number,
  maxLength?: number,
): Rendering {
  const record = { refs: [] as string[], stubs: [] as string[], direct: [] as string[] };
  return { text: render(depth, record, squeeze, maxLength), ...record, depth, maxLength };
}

/**
 * The deepest rendering whose text fits `share` characters, from stub depth `least` on: objects
 * nested deeper become stubs, those up to `least` never do (what a tool's parameters and result
 * use directly stays typed, up to 8 shares); when that alone exceeds the share, `squeeze`s
 * shorten it first (from `minSqueeze` on). Without a share, rendered whole (no stubs).
 * Each depth tried renders once more: at most as many renderings as objects nest.
 *
 * @example
 * ```ts
 * const { text, stubs } = renderWithin((depth, record) => renderSchemaType(schema, { stub: depth === undefined ? undefined : { depth, name }, record }), 1, 2_000);
 * ```
 */
export function renderWithin(
  render: RenderAtDepth,
  least: number,
  share: number | undefined,
  squeezes = 0,
  minSqueeze = 0,
): Rendering {
  if (share === undefined) return renderAt(render, undefined, 0);
  const cap = share * HARD_LIMIT_SHARES;
  let squeeze = Math.min(minSqueeze, squeezes);
  let best = renderAt(render, least, squeeze, cap);
  // Too large at the least depth: shorter by other means, until it fits or nothing is left to try.
  while (best.text.length > share && squeeze < squeezes) best = renderAt(render, least, ++squeeze, cap);
  for (let depth = least + 1; best.stubs.length > 0 && depth <= MAX_STUB_DEPTH; depth++) {
    const deeper = renderAt(render, depth, squeeze, cap);
    if (deeper.text.length > share) break;
    best = deeper;
  }
  return best;
}
