import { cyrnelError, isCyrnelError } from '../errors';
import type { ProcessesApi } from '../host/host-api';
import { DELETED_ERROR, type KillReason, killEnd } from './process-errors';
import { requireProcessId } from './process-input';
import type { ProcessParts } from './process-parts';

/** `kill`, `delete` and `revokeKey`: the end of a process, wherever it runs. */
export type ProcessKill = Pick<ProcessesApi, 'kill' | 'delete' | 'revokeKey'>;

/** Processes a key's revocation reads from the store at a time. */
const REVOKE_PAGE = 200;

/** Create the operations that end and remove processes. */
export function createProcessKill(parts: ProcessParts): ProcessKill {
  const { storage, now, host, local, lookup, logger } = parts;
  const { queue, remote } = parts.hosts;

  /** End process `id` for `reason` wherever it is; answers its record as the kill left it. */
  const end = async (id: number, reason: KillReason): Promise<Awaited<ReturnType<ProcessesApi['kill']>>> => {
    const run = await lookup.activeRun(id);
    if (run) {
      local.kill(run, reason);
      return { ...run.record };
    }
    const record = await lookup.stored(id);
    if (record.state === 'idle') throw cyrnelError('process_not_running', `process ${id} is idle`);
    const at = now().toISOString();
    const change = {
      state: 'idle',
      exitState: 'canceled',
      ...killEnd(reason),
      completedAt: at,
      updatedAt: at,
    } as const;
    // Still in the shared queue: recorded unless a host takes it first (then that host kills it).
    if (host && record.state === 'queued' && record.hostId === null) {
      if (!(await queue.killUnclaimed(id, change))) return end(id, reason);
      return { ...record, ...change };
    }
    // Another live host runs it: that host kills it (told at once, and it looks for requests).
    if (await remote.elsewhere(id, record.state)) {
      await remote.requestKill(id, at, reason);
      return record;
    }
    // Taken from the shared queue by this host meanwhile: killed as its own run, or already ended.
    if (local.live.has(id)) return end(id, reason);
    if ((await lookup.stored(id)).state === 'idle')
      throw cyrnelError('process_not_running', `process ${id} is idle`);
    // A non-idle row no live host runs (left by a host that stopped): record the kill.
    await storage.update(id, change);
    return { ...record, ...change };
  };

  const kill: ProcessesApi['kill'] = async (rawId) => end(requireProcessId(rawId), 'process_killed');

  const remove: ProcessesApi['delete'] = async (rawId) => {
    const id = requireProcessId(rawId);
    if (await lookup.activeRun(id)) throw cyrnelError('process_not_idle', `process ${id} is not idle`);
    const record = await lookup.stored(id);
    if (record.state !== 'idle') throw cyrnelError('process_not_idle', `process ${id} is not idle`);
    await storage.delete(id);
    // Followers of a process that never ran would wait for a run that cannot come: end them.
    local.endWaiting(id, {
      type: 'exit',
      data: { exitState: 'canceled', error: DELETED_ERROR, errorReason: 'process_killed' },
    });
  };

  /**
   * The ids of the queued, running and terminating processes of `keyId`, here and in the store,
   * the queued ones first: a run ended first would free its slot for the next queued one (here,
   * or claimed from the shared queue), which must never start.
   */
  const liveOfKey = async (keyId: string): Promise<number[]> => {
    const queued = new Set<number>();
    const rest = new Set<number>();
    for (const run of local.live.values())
      if (!run.finished && run.record.keyId === keyId)
        (run.record.state === 'queued' ? queued : rest).add(run.record.id);
    for (const state of ['queued', 'running', 'waiting', 'terminating'] as const) {
      let beforeId: number | undefined;
      for (;;) {
        const page = await storage.list({
          keyId,
          state,
          limit: REVOKE_PAGE,
          ...(beforeId === undefined ? {} : { beforeId }),
        });
        for (const item of page) (state === 'queued' ? queued : rest).add(item.id);
        if (page.length < REVOKE_PAGE) break;
        beforeId = page[page.length - 1]?.id;
      }
    }
    return [...queued, ...[...rest].filter((id) => !queued.has(id))];
  };

  const revokeKey: ProcessesApi['revokeKey'] = async (keyId) => {
    if (typeof keyId !== 'string' || keyId === '')
      throw cyrnelError('invalid_request', 'keyId must be a non-empty string');
    // Before the sweep: a create of this key stored after it is ended by the create itself.
    parts.revokedKeys.add(keyId);
    const ids = await liveOfKey(keyId);
    let ended = 0;
    for (const id of ids) {
      try {
        await end(id, 'key_revoked');
        ended++;
      } catch (error) {
        // Ended or deleted meanwhile: nothing left to stop.
        if (
          isCyrnelError(error) &&
          (error.reason === 'process_not_running' || error.reason === 'process_not_found')
        )
          continue;
        logger.error('process: ending a process of a revoked key failed', { id, error: String(error) });
      }
    }
    // This host's runs are recorded before the answer; other hosts record theirs when they take the kill.
    await Promise.all(
      ids.map((id) => local.live.get(id)?.settled).filter((settled) => settled !== undefined),
    );
    return ended;
  };

  return { kill, delete: remove, revokeKey };
}
