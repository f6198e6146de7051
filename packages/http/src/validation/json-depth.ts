/**
 * The nesting depth of a JSON text, counted in one pass without recursion: every `[` or `{`
 * outside a string opens a level. Stops counting as soon as `limit` is exceeded, so a
 * hostile body of a million `[` costs one scan and no stack. The text need not be valid JSON
 * (malformed text is `JSON.parse`'s to refuse); the count is exact for valid JSON.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) {
      index = closingQuote(text, index);
      if (index < 0) return false;
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) depth--;
  }
  return false;
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
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
