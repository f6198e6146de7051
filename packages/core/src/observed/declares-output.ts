import type { JSONSchema } from '@cyrnel/sdk';

// Keywords that describe a schema without constraining anything: a schema of only these says
// nothing of the result.
const ANNOTATIONS: ReadonlySet<string> = new Set(['$schema', '$id', '$comment', 'title', 'description']);

/**
 * Whether a tool's output schema says anything about its results: `{}` (what the MCP adapter
 * stores for a tool without `outputSchema`) or only annotations do not, and only such tools get a
 * shape observed from their results.
 *
 * @example
 * ```ts
 * declaresOutput({}); // false
 * declaresOutput({ type: 'object', properties: { sum: { type: 'number' } } }); // true
 * ```
 */
export function declaresOutput(schema: JSONSchema): boolean {
  return Object.keys(schema).some((key) => !ANNOTATIONS.has(key));
}
