import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Task ids of processes: derived from the process id, unguessable, checked without storage. */
export interface TaskIds {
  /** The task id of a process. */
  mint(processId: number): string;
  /** The process a task id names, or undefined when it is none this key minted. */
  processOf(taskId: string): number | undefined;
}

const FORMAT = /^task-(0|[1-9]\d{0,14})-([A-Za-z0-9_-]{22})$/;

/**
 * Task ids are `task-<processId>-<mac>`: the process id (so any host of one database finds the
 * run, with nothing stored per task) and 132 bits of HMAC-SHA256 under a key of its own, derived
 * from `key` (the key sealing approval rounds, shared by every host that may serve the client's
 * next request). An id nobody minted is refused before any lookup, so ids cannot be enumerated;
 * ownership is still checked on every use (the caller must own the process).
 *
 * @example
 * ```ts
 * const ids = createTaskIds(requestStateKey);
 * ids.processOf(ids.mint(42)); // 42
 * ids.processOf('task-42-forgedforgedforgedforg'); // undefined
 * ```
 */
export function createTaskIds(key: Uint8Array | string | undefined): TaskIds {
  const own = createHmac('sha256', key ?? randomBytes(32))
    .update('cyrnel mcp task ids')
    .digest();
  const mac = (processId: number) =>
    createHmac('sha256', own).update(String(processId)).digest('base64url').slice(0, 22);
  return {
    mint: (processId) => `task-${processId}-${mac(processId)}`,
    processOf(taskId) {
      const match = FORMAT.exec(taskId);
      if (!match) return undefined;
      const processId = Number(match[1]);
      if (!Number.isSafeInteger(processId)) return undefined;
      const given = Buffer.from(match[2] as string);
      const expected = Buffer.from(mac(processId));
      return timingSafeEqual(given, expected) ? processId : undefined;
    },
  };
}
