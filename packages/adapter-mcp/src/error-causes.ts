/**
 * The chain of causes of an error, outermost first (at most 8: a cycle of causes ends it). The
 * MCP SDK wraps what went wrong (a refused connection, an HTTP status, an OAuth refusal) in
 * errors of its own, so a caller looks through the whole chain.
 *
 * @example
 * causes(new Error('send failed', { cause: Object.assign(new Error('x'), { code: 'EPIPE' }) }));
 * // → [the outer error, the error with code EPIPE]
 */
export function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let cause = error;
    cause !== undefined && chain.length < 8;
    cause = (cause as { cause?: unknown })?.cause
  ) {
    chain.push(cause);
    if (typeof cause !== 'object' || cause === null) break;
  }
  return chain;
}
