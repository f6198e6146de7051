import { checkJson, describeJsonProblem } from './json-check';

/** Options of {@link parseJsonObject}. */
export interface ParseJsonObjectOptions {
  /** An example of the object in JSON, shown when the text is written like a JavaScript object. */
  readonly example?: string;
}

/**
 * `text` parsed as a JSON object, or the reason it is none, said about `what`
 * (`parseJsonObject('[]', 'The scope')` → an Error "The scope is a JSON object ({} for none).";
 * `parseJsonObject("{ a: 1 }", 'The scope')` → "The scope is not JSON (line 1, column 3: a property
 * name without quotes: …)."). Checked in the browser so a typo costs no request; what the object
 * says is the server's to judge. The reason never quotes the text: it may hold secrets.
 *
 * @example
 * ```ts
 * const secrets = parseJsonObject(text, 'The secrets field', { example: '{ "token": "…" }' });
 * if (secrets instanceof Error) return setError(secrets); // never quotes the text
 * ```
 */
export function parseJsonObject(
  text: string,
  what: string,
  options: ParseJsonObjectOptions = {},
): Record<string, unknown> | Error {
  const checked = checkJson(text);
  if (!checked.ok) {
    const example = checked.error.javascriptLike && options.example ? ` In JSON: ${options.example}` : '';
    return new Error(`${what} is not JSON (${describeJsonProblem(checked.error)}).${example}`);
  }
  const value = checked.value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return new Error(`${what} is a JSON object ({} for none).`);
}
