import type { ProcessRecord } from '@cyrnel/sdk/api';
import { cyrnelError, isCyrnelError } from '../errors';
import type { ProcessesApi } from '../host/host-api';
import { validateRunOptions } from './process-input';

/**
 * Who acts on processes: the processes it creates carry its `keyId`; with `ownOnly` it sees and
 * touches only those (an agent key), anyone else's answer 404 so ids do not leak.
 */
export type ProcessActor = (
  | { readonly keyId: string; readonly ownOnly: true }
  | { readonly keyId: string | null; readonly ownOnly: false }
) & {
  /** Whose connections the processes it creates use (default null: shared ones only). */
  readonly principalId?: string | null;
};

/**
 * The processes API as `actor` may use it. Ownership is checked before each call by id; a
 * process's key never changes and ids are never reused, so the check cannot go stale.
 *
 * @example
 * ```ts
 * const mine = scopeProcesses(host.processes, { keyId: key.id, ownOnly: true });
 * await mine.get(7); // 404 `process_not_found` unless key.id created process 7
 * ```
 */
export function scopeProcesses(api: ProcessesApi, actor: ProcessActor): ProcessesApi {
  const principalId = actor.principalId ?? null;
  if (!actor.ownOnly) {
    if (actor.keyId === null && principalId === null) return api;
    const { keyId } = actor;
    return {
      ...api,
      create: (request, options) => api.create(request, { ...options, keyId, principalId }),
      plan: (request, options) => api.plan(request, { ...options, keyId }),
    };
  }
  const { keyId } = actor;
  const own = async (id: number): Promise<ProcessRecord> => {
    let record: ProcessRecord | undefined;
    try {
      record = await api.get(id);
    } catch (error) {
      if (!isCyrnelError(error) || error.reason !== 'process_not_found') throw error;
    }
    if (!record || record.keyId !== keyId) throw cyrnelError('process_not_found', `process ${id} not found`);
    return record;
  };
  const guarded = <T>(id: number, call: () => Promise<T>): Promise<T> => own(id).then(call);
  return {
    create: (request) => api.create(request, { keyId, principalId }),
    plan: (request) => api.plan(request, { keyId }),
    check: (request) => api.check(request),
    wait: (id, options) => guarded(id, () => api.wait(id, options)),
    list: (query) => api.list({ ...query, keyId }),
    get: own,
    code: (id) => guarded(id, () => api.code(id)),
    stdout: (id) => guarded(id, () => api.stdout(id)),
    stderr: (id) => guarded(id, () => api.stderr(id)),
    output: (id) => guarded(id, () => api.output(id)),
    calls: (id) => guarded(id, () => api.calls(id)),
    subscribe: (id, listener) => guarded(id, () => api.subscribe(id, listener)),
    // A bad body is a 400 whoever's process it names, as for the unscoped API.
    run: async (id, options) => {
      validateRunOptions(options);
      return guarded(id, () => api.run(id, options));
    },
    kill: (id) => guarded(id, () => api.kill(id)),
    delete: (id) => guarded(id, () => api.delete(id)),
    // Ending a key's processes follows the key's deletion, an admin's act.
    revokeKey: async () => {
      throw cyrnelError('forbidden', 'only an admin ends the processes of a revoked key');
    },
  };
}
