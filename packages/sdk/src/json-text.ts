/**
 * A tool result handed on as its JSON text: an adapter that already holds the answer as text
 * (parsed and bounded off the main thread) returns it so, and the host forwards the text to the
 * environment, which parses it where the code runs. A result of megabytes then never becomes
 * millions of objects on the host's main thread, where parsing, copying and serialising it again
 * for the sandbox would stall every other request.
 */
export interface JsonText {
  /** The marker {@link isJsonText} checks. */
  readonly kind: typeof JSON_TEXT_KIND;
  /** The JSON text of the value (valid JSON, produced by `JSON.stringify`). */
  readonly text: string;
}

/** The `kind` of a {@link JsonText}. */
export const JSON_TEXT_KIND = 'cyrnel.json-text';

/**
 * Wrap the JSON text of a tool result (see {@link JsonText}).
 *
 * @example
 * ```ts
 * import { jsonText } from '@cyrnel/sdk';
 * async invoke() { return jsonText(JSON.stringify({ ok: true })); } // the code receives { ok: true }
 * ```
 */
export function jsonText(text: string): JsonText {
  return Object.freeze({ kind: JSON_TEXT_KIND, text });
}

/**
 * Whether a tool result is a {@link JsonText}. An environment that receives one parses `text`
 * where the code runs; anything else is the value itself.
 *
 * @example
 * ```ts
 * const value = isJsonText(result) ? JSON.parse(result.text) : result;
 * ```
 */
export function isJsonText(value: unknown): value is JsonText {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === JSON_TEXT_KIND &&
    typeof (value as { text?: unknown }).text === 'string' &&
    Object.keys(value).length === 2
  );
}
