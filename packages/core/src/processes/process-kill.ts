import { cyrnelError } from '../errors';
import type { ProcessesApi } from '../host/host-api';
import { DELETED_ERROR, KILLED_ERROR } from './process-errors';
import { requireProcessId } from './process-input';
import type { ProcessParts } from './process-parts';

/** `kill` and `delete`: the end of a process, wherever it runs. */
export type ProcessKill = Pick<ProcessesApi, 'kill' | 'delete'>;

/** Create the operations that end and remove processes. */
export function createProcessKill(parts: ProcessParts): ProcessKill {
  const { storage, now, host, local, lookup } = parts;
  const { queue, remote } = parts.hosts;

  const kill: ProcessesApi['kill'] = async (rawId) => {
    const id = requireProcessId(rawId);
    const run = await lookup.activeRun(id);
    if (run) {
      local.kill(run);
      return { ...run.record };
    }
    const record = await lookup.stored(id);
    if (record.state === 'idle') throw cyrnelError('process_not_running', `process ${id} is idle`);
    const at = now().toISOString();
    const change = {
      state: 'idle',
      exitState: 'canceled',
      error: KILLED_ERROR,
      errorReason: 'process_killed',
      completedAt: at,
      updatedAt: at,
    } as const;
    // Still in the shared queue: recorded unless a host takes it first (then that host kills it).
    if (host && record.state === 'queued' && record.hostId === null) {
      if (!(await queue.killUnclaimed(id, change))) return kill(id);
      return { ...record, ...change };
    }
    // Another live host runs it: that host kills it (told at once, and it looks for requests).
    if (await remote.elsewhere(id, record.state)) {
      await remote.requestKill(id, at);
      return record;
    }
    // Taken from the shared queue by this host meanwhile: killed as its own run, or already ended.
    if (local.live.has(id)) return kill(id);
    if ((await lookup.stored(id)).state === 'idle')
      throw cyrnelError('process_not_running', `process ${id} is idle`);
    // A non-idle row no live host runs (left by a host that stopped): record the kill.
    await storage.update(id, change);
    return { ...record, ...change };
  };

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

  return { kill, delete: remove };
}
