import { cyrnelError } from '../errors';

/** The budget of one tool answer on its way into a sandbox. */
export interface AnswerBudget {
  /** Bytes of its JSON text (UTF-8). */
  readonly maxBytes: number;
  /** Nesting of arrays and objects. */
  readonly maxDepth: number;
  /** Array items plus object members, over the whole answer. */
  readonly maxElements: number;
}

/**
 * Serialise a tool's answer to JSON text once, within `budget`: past its depth, elements or
 * bytes the call fails with the catchable `upstream_answer_too_large`, before anything of it
 * reaches a sandbox. The walk stops at the first excess (a cycle is an excess of depth).
 *
 * @example
 * ```ts
 * const text = boundedJson(result, { maxBytes: 64 << 20, maxDepth: 64, maxElements: 5_000_000 });
 * ```
 */
export function boundedJson(value: unknown, budget: AnswerBudget): string {
  let elements = 0;
  const tooLarge = (what: string) =>
    cyrnelError('upstream_answer_too_large', `the tool's answer ${what}: it was not passed on`);
  const walk = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object') return;
    if (depth >= budget.maxDepth)
      throw tooLarge(`nests arrays and objects more than ${budget.maxDepth} levels deep`);
    if (Array.isArray(node)) {
      elements += node.length;
      if (elements > budget.maxElements) throw tooLarge(`has more than ${budget.maxElements} elements`);
      for (const item of node) walk(item, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    const keys = Object.keys(record);
    elements += keys.length;
    if (elements > budget.maxElements) throw tooLarge(`has more than ${budget.maxElements} elements`);
    for (const key of keys) walk(record[key], depth + 1);
  };
  walk(value, 0);
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch (error) {
    // A string past V8's longest is the only way a walked, acyclic tree fails here.
    throw tooLarge(`cannot be serialised (${error instanceof Error ? error.message : String(error)})`);
  }
  // UTF-8 is at least as long as the UTF-16 length: the exact count only near the budget.
  if (
    text.length > budget.maxBytes ||
    (text.length * 3 > budget.maxBytes && Buffer.byteLength(text) > budget.maxBytes)
  )
    throw tooLarge(`is larger than ${budget.maxBytes} bytes`);
  return text;
}
