/** The limits {@link jsonShapeExceeds} checks. */
export interface JsonShapeLimits {
  /** Deepest nesting of arrays and objects. */
  readonly maxDepth: number;
  /** Most arrays, objects and values after a comma (what `JSON.parse` must allocate). */
  readonly maxElements: number;
}

/**
 * Which limit a JSON text exceeds, found in one pass without recursion, or undefined: every `[`
 * or `{` outside a string opens a level, and every container and every `,` counts as an
 * element. Stops as soon as a limit is exceeded, so a hostile body of a million `[` costs one
 * scan and no stack, and a body of a million tiny values never reaches `JSON.parse` (which would
 * hold the event loop for a second). The text need not be valid JSON (malformed text is
 * `JSON.parse`'s to refuse); the counts are exact for valid JSON.
 */
export function jsonShapeExceeds(text: string, limits: JsonShapeLimits): 'depth' | 'elements' | undefined {
  let depth = 0;
  let elements = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) {
      index = closingQuote(text, index);
      if (index < 0) return undefined;
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (++depth > limits.maxDepth) return 'depth';
      if (++elements > limits.maxElements) return 'elements';
    } else if (char === COMMA) {
      if (++elements > limits.maxElements) return 'elements';
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) depth--;
  }
  return undefined;
}

/** Whether a JSON text nests arrays and objects deeper than `limit` (see {@link jsonShapeExceeds}). */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  return jsonShapeExceeds(text, { maxDepth: limit, maxElements: Number.POSITIVE_INFINITY }) === 'depth';
}

/**
 * The index of the quote closing the string opened at `open`: the next quote not preceded by an
 * odd run of backslashes, found with `indexOf` so long strings cost native speed. -1 when none.
 */
function closingQuote(text: string, open: number): number {
  let end = open;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end;
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
