import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';

/** Open batches of a stdio connection, answered as one array once each of their requests is. */
export interface StdioBatches {
  /**
   * Open a batch: `answers` are those already known (refusals), `pending` the ids of the requests
   * delivered to the server. Written at once when nothing is pending.
   */
  open(answers: readonly JSONRPCMessage[], pending: readonly RequestId[]): void;
  /** Keep `message` when it answers a request of an open batch (true), writing the batch once complete. */
  take(message: JSONRPCMessage): boolean;
}

const idKey = (id: unknown) => `${typeof id}:${String(id)}`;

/**
 * The batches of a 2025-03-26 stdio connection: JSON-RPC answers a batch with one array holding
 * the response to each of its requests, while the server answers each request on its own.
 *
 * @example
 * ```ts
 * const batches = createStdioBatches((answers) => writeLine(answers));
 * batches.open([], ['1', '2']);
 * batches.take(responseTo1); // kept; the array is written once responseTo2 is taken too
 * ```
 */
export function createStdioBatches(write: (answers: JSONRPCMessage[]) => void): StdioBatches {
  const open = new Map<string, { answers: JSONRPCMessage[]; pending: Set<string> }>();
  return {
    open(answers, pending) {
      if (pending.length === 0) {
        if (answers.length > 0) write([...answers]);
        return;
      }
      const batch = { answers: [...answers], pending: new Set(pending.map(idKey)) };
      for (const key of batch.pending) open.set(key, batch);
    },
    take(message) {
      if (!('id' in message) || !('result' in message || 'error' in message)) return false;
      const key = idKey(message.id);
      const batch = open.get(key);
      if (batch === undefined) return false;
      open.delete(key);
      batch.pending.delete(key);
      batch.answers.push(message);
      if (batch.pending.size === 0) write(batch.answers);
      return true;
    },
  };
}
