/**
 * `text` parsed as a JSON object, or the reason it is none, said about `what`
 * (`parseJsonObject('[]', 'The scope')` → an Error "The scope is a JSON object ({} for none).").
 * Checked in the browser so a typo costs no request; what the object says is the server's to judge.
 */
export function parseJsonObject(text: string, what: string): Record<string, unknown> | Error {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
    return new Error(`${what} is a JSON object ({} for none).`);
  } catch (error) {
    return new Error(`${what} is not JSON: ${(error as Error).message}`);
  }
}
