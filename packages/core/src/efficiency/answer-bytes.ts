import { isJsonText } from '@cyrnel/sdk';

/**
 * The bytes a tool's answer brings into a sandbox: the UTF-8 length of its JSON text. An answer
 * that is JSON text already (`JsonText`: from the egress gateway or an adapter's worker) is only
 * measured, never serialised again; any other value is serialised once here (values without a
 * JSON form count 0). Measured on the host, where the answer passes: a sandbox never reports it.
 *
 * @example
 * ```ts
 * answerBytes({ name: 'é' }); // 13: {"name":"é"} with é in two bytes
 * answerBytes(jsonText('[1,2]')); // 5
 * ```
 */
export function answerBytes(answer: unknown): number {
  if (isJsonText(answer)) return Buffer.byteLength(answer.text);
  let text: string | undefined;
  try {
    text = JSON.stringify(answer) as string | undefined;
  } catch {
    // A cycle, a BigInt: the value crosses by structured clone, but has no JSON size.
    return 0;
  }
  return text === undefined ? 0 : Buffer.byteLength(text);
}
