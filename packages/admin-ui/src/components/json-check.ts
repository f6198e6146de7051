/** Where a text stops being JSON, and what is wrong there, in words that never quote the text. */
export interface JsonProblem {
  /** 1-based line of the mistake. */
  readonly line: number;
  /** 1-based column of the mistake. */
  readonly column: number;
  /** What is wrong there (`a property name needs double quotes`). */
  readonly problem: string;
  /**
   * True when the text is written like a JavaScript object (names without quotes, strings in single
   * quotes, a trailing comma, a comment): the usual mistake of copying an example from code.
   */
  readonly javascriptLike: boolean;
}

/** The result of {@link checkJson}: the value, or the problem. */
export type JsonCheck =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: JsonProblem };

/** Thrown inside the scanner with the offset of the mistake. */
class Stop {
  constructor(
    readonly offset: number,
    readonly problem: string,
    readonly javascriptLike = false,
  ) {}
}

const WORD = /[A-Za-z_$][\w$]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * A scanner of the JSON grammar that only says where and why a text is not JSON (the value itself
 * comes from `JSON.parse`): the browsers' own messages differ, and some quote the text around the
 * mistake, which a secret's field may not show.
 */
function scan(text: string): void {
  let at = 0;
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at += 1;
    if (text.startsWith('//', at) || text.startsWith('/*', at)) {
      throw new Stop(at, 'a comment: JSON has none', true);
    }
  };
  const string = () => {
    const start = at;
    at += 1;
    while (at < text.length) {
      const char = text[at] as string;
      if (char === '"') {
        at += 1;
        return;
      }
      if (char === '\n' || char === '\r')
        throw new Stop(at, 'a line break inside a string: write \\n instead');
      if (char < ' ') throw new Stop(at, 'a control character inside a string: escape it (\\t, \\u0000)');
      if (char === '\\') {
        const next = text[at + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) {
            throw new Stop(at, 'a \\u escape needs four hexadecimal digits');
          }
          at += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) {
          throw new Stop(
            at,
            'an escape JSON does not know: only \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX',
          );
        }
        at += 2;
        continue;
      }
      at += 1;
    }
    throw new Stop(start, 'a string that is never closed: a double quote is missing');
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === undefined) throw new Stop(at, 'the text ends where a value should be');
    if (char === '{' || char === '[' || char === '"') {
      (char === '{' ? object : char === '[' ? array : string)();
      return;
    }
    if (char === "'") throw new Stop(at, 'a string in single quotes: JSON strings use double quotes', true);
    if (char === '-' || (char >= '0' && char <= '9')) {
      NUMBER.lastIndex = at;
      const match = NUMBER.exec(text);
      if (!match) throw new Stop(at, 'not a JSON number');
      at += match[0].length;
      if (/[\w.]/.test(text[at] ?? ''))
        throw new Stop(at, 'not a JSON number (no hexadecimal, leading zeros or a trailing dot)');
      return;
    }
    WORD.lastIndex = at;
    const word = WORD.exec(text)?.[0];
    if (word === 'true' || word === 'false' || word === 'null') {
      at += word.length;
      return;
    }
    if (word !== undefined) {
      throw new Stop(
        at,
        'a word without quotes: strings need double quotes (true, false and null need none)',
        true,
      );
    }
    if (char === '}' || char === ']') throw new Stop(at, `a ${char} where a value should be`);
    if (char === ',') throw new Stop(at, 'a comma where a value should be');
    if (char === '+' || char === '.') throw new Stop(at, 'not a JSON number (no leading + or .)');
    throw new Stop(at, 'a character that cannot start a JSON value');
  };
  const object = () => {
    at += 1;
    space();
    if (text[at] === '}') {
      at += 1;
      return;
    }
    for (;;) {
      space();
      const char = text[at];
      if (char === undefined) throw new Stop(at, 'the text ends inside an object: a } is missing');
      if (char === "'")
        throw new Stop(at, 'a property name in single quotes: JSON needs double quotes', true);
      if (char === '}') throw new Stop(at, 'a comma before }: JSON allows no trailing comma', true);
      if (char !== '"') {
        WORD.lastIndex = at;
        const quoteless = WORD.exec(text) !== null || /[0-9-]/.test(char);
        throw new Stop(
          at,
          quoteless
            ? 'a property name without quotes: JSON needs double quotes around names'
            : 'a property name should be here, in double quotes',
          quoteless,
        );
      }
      string();
      space();
      if (text[at] === '=') throw new Stop(at, 'an = after a name: JSON uses a colon (:)');
      if (text[at] !== ':') throw new Stop(at, 'a colon (:) is missing after the property name');
      at += 1;
      value();
      space();
      if (text[at] === ',') {
        at += 1;
        continue;
      }
      if (text[at] === '}') {
        at += 1;
        return;
      }
      if (text[at] === undefined) throw new Stop(at, 'the text ends inside an object: a } is missing');
      throw new Stop(at, 'a comma (,) or } is missing before this');
    }
  };
  const array = () => {
    at += 1;
    space();
    if (text[at] === ']') {
      at += 1;
      return;
    }
    for (;;) {
      space();
      if (text[at] === ']') throw new Stop(at, 'a comma before ]: JSON allows no trailing comma', true);
      value();
      space();
      if (text[at] === ',') {
        at += 1;
        continue;
      }
      if (text[at] === ']') {
        at += 1;
        return;
      }
      if (text[at] === undefined) throw new Stop(at, 'the text ends inside a list: a ] is missing');
      throw new Stop(at, 'a comma (,) or ] is missing before this');
    }
  };
  value();
  space();
  if (at < text.length) throw new Stop(at, 'more text after the value: one JSON value only');
}

/** The 1-based line and column of `offset` in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * `text` parsed as JSON, or where and why it is not, without quoting it
 * (`checkJson("{ Authorization: 'x' }")` → line 1, column 3, "a property name without quotes: JSON
 * needs double quotes around names", `javascriptLike`).
 *
 * @example
 * ```ts
 * const checked = checkJson(text);
 * if (!checked.ok) return `line ${checked.error.line}, column ${checked.error.column}: ${checked.error.problem}`;
 * ```
 */
export function checkJson(text: string): JsonCheck {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    try {
      scan(text);
    } catch (stop) {
      if (stop instanceof Stop) {
        return {
          ok: false,
          error: {
            ...lineAndColumn(text, stop.offset),
            problem: stop.problem,
            javascriptLike: stop.javascriptLike,
          },
        };
      }
      throw stop;
    }
    // The scanner found nothing the parser did (it should not happen): say so without a place.
    return { ok: false, error: { line: 1, column: 1, problem: 'not JSON', javascriptLike: false } };
  }
}

/** A {@link JsonProblem} in a sentence: `line 1, column 3: a property name without quotes: …`. */
export function describeJsonProblem(problem: JsonProblem): string {
  return `line ${problem.line}, column ${problem.column}: ${problem.problem}`;
}
