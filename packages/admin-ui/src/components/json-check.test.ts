import { describe, expect, it } from 'vitest';
import { checkJson, describeJsonProblem } from './json-check';
import { parseJsonObject } from './json-object';

/** The problem `text` has, in the words the forms show. */
function problem(text: string): string {
  const checked = checkJson(text);
  if (checked.ok) throw new Error('expected not JSON');
  return describeJsonProblem(checked.error);
}

describe('checkJson', () => {
  it('parses JSON as JSON.parse does', () => {
    expect(checkJson('{ "a": [1, -2.5e3, true, null, "x\\n"] }')).toEqual({
      ok: true,
      value: { a: [1, -2500, true, null, 'x\n'] },
    });
  });

  it('says where a JavaScript object literal stops being JSON, and that it is written like one', () => {
    const checked = checkJson("{ Authorization: 'Bearer <token>' }");
    expect(checked).toEqual({
      ok: false,
      error: {
        line: 1,
        column: 3,
        problem: 'a property name without quotes: JSON needs double quotes around names',
        javascriptLike: true,
      },
    });
    expect(problem(`{ "a": 'b' }`)).toBe(
      'line 1, column 8: a string in single quotes: JSON strings use double quotes',
    );
    expect(problem(`{ 'a': "b" }`)).toBe(
      'line 1, column 3: a property name in single quotes: JSON needs double quotes',
    );
    expect(problem('{ "a": 1, }')).toBe('line 1, column 11: a comma before }: JSON allows no trailing comma');
    expect(problem('[1, 2,]')).toBe('line 1, column 7: a comma before ]: JSON allows no trailing comma');
    expect(problem('{\n  // note\n  "a": 1\n}')).toBe('line 2, column 3: a comment: JSON has none');
    expect(problem('{ "a": undefined }')).toBe(
      'line 1, column 8: a word without quotes: strings need double quotes (true, false and null need none)',
    );
  });

  it('names the other mistakes with their line and column', () => {
    expect(problem('')).toBe('line 1, column 1: the text ends where a value should be');
    expect(problem('{ "a": 1')).toBe('line 1, column 9: the text ends inside an object: a } is missing');
    expect(problem('{ "a" 1 }')).toBe('line 1, column 7: a colon (:) is missing after the property name');
    expect(problem('{ "a": 1 "b": 2 }')).toBe('line 1, column 10: a comma (,) or } is missing before this');
    expect(problem('{ "a": "b\nc" }')).toBe(
      'line 1, column 10: a line break inside a string: write \\n instead',
    );
    expect(problem('{ "a": "b }')).toBe(
      'line 1, column 8: a string that is never closed: a double quote is missing',
    );
    expect(problem('[01]')).toBe(
      'line 1, column 3: not a JSON number (no hexadecimal, leading zeros or a trailing dot)',
    );
    expect(problem('{} {}')).toBe('line 1, column 4: more text after the value: one JSON value only');
    expect(problem('{ "a": "\\x" }')).toBe(
      'line 1, column 9: an escape JSON does not know: only \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX',
    );
  });

  it('never quotes the text: a secret typed with a mistake is not shown back', () => {
    const secret = 'tok-3f9a-secret';
    for (const text of [`{ token: '${secret}' }`, `{ "token": ${secret} }`, `{ "token": "${secret}`]) {
      const checked = checkJson(text);
      expect(checked.ok).toBe(false);
      expect(JSON.stringify(checked)).not.toContain(secret);
      const parsed = parseJsonObject(text, 'The secrets field', { example: '{ "token": "…" }' });
      expect(parsed).toBeInstanceOf(Error);
      expect((parsed as Error).message).not.toContain(secret);
    }
  });
});

describe('parseJsonObject', () => {
  it('gives the example in JSON when the text is written like a JavaScript object', () => {
    const parsed = parseJsonObject("{ services: ['notes'] }", 'The scope', {
      example: '{ "services": ["notes"] }',
    });
    expect((parsed as Error).message).toBe(
      'The scope is not JSON (line 1, column 3: a property name without quotes: JSON needs double quotes around names). In JSON: { "services": ["notes"] }',
    );
    expect((parseJsonObject('[]', 'The scope') as Error).message).toBe(
      'The scope is a JSON object ({} for none).',
    );
    expect(parseJsonObject('{ "services": [] }', 'The scope')).toEqual({ services: [] });
  });
});
