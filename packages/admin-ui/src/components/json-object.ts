/** Options of {@link parseJsonObject}. */
export interface ParseJsonObjectOptions {
  /**
   * The text holds secrets: the reason never quotes it. The browser's JSON parser quotes the text
   * around a mistake (`Unexpected token 'x', "{"token": xyz}" is not valid JSON`), so only the
   * position it names is kept.
   */
  readonly secret?: boolean;
}

/** Where the parser's message says the mistake is (`at position 9 (line 1 column 10)`), if it says. */
function positionOf(message: string): string {
  const match = /at position \d+(?: \(line \d+ column \d+\))?/.exec(message);
  return match ? ` (${match[0]})` : '';
}

/**
 * `text` parsed as a JSON object, or the reason it is none, said about `what`
 * (`parseJsonObject('[]', 'The scope')` → an Error "The scope is a JSON object ({} for none).").
 * Checked in the browser so a typo costs no request; what the object says is the server's to judge.
 *
 * @example
 * ```ts
 * const secrets = parseJsonObject(text, 'The secrets field', { secret: true });
 * if (secrets instanceof Error) return setError(secrets); // never quotes the text
 * ```
 */
export function parseJsonObject(
  text: string,
  what: string,
  options: ParseJsonObjectOptions = {},
): Record<string, unknown> | Error {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
    return new Error(`${what} is a JSON object ({} for none).`);
  } catch (error) {
    const message = (error as Error).message;
    return new Error(
      options.secret ? `${what} is not JSON${positionOf(message)}.` : `${what} is not JSON: ${message}`,
    );
  }
}
