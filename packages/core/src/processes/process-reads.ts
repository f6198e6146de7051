import type { ProcessSummary } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import type { ProcessesApi } from '../host/host-api';
import { requireProcessId } from './process-input';
import { toProcessPage, toStorageQuery } from './process-list-query';
import type { ProcessParts } from './process-parts';

/** The reads of the processes API: a run in memory answers for its process, the store otherwise. */
export type ProcessReads = Pick<
  ProcessesApi,
  'list' | 'get' | 'code' | 'stdout' | 'stderr' | 'output' | 'calls'
>;

/** Create the reads of the processes API. */
export function createProcessReads(parts: ProcessParts): ProcessReads {
  const { storage, execution, lookup } = parts;
  const { live } = execution;
  return {
    async list(query) {
      const storageQuery = toStorageQuery(query);
      // The store catches up with the runs in memory first, then answers alone: filtering on
      // stored states while showing live ones could list a `running` filter's match as idle.
      await Promise.all(
        [...live.values()].map((run) => {
          execution.flushDeferred(run);
          return run.persisted;
        }),
      );
      const rows = await storage.list({ ...storageQuery, limit: storageQuery.limit + 1 });
      // A storage that still hands back `envConfig` must not leak it into the page.
      return toProcessPage(
        rows,
        storageQuery.limit,
        ({ envConfig: _envConfig, ...row }: ProcessSummary & { envConfig?: unknown }) => row,
      );
    },

    async get(rawId) {
      const id = requireProcessId(rawId);
      const run = live.get(id);
      return run ? { ...run.record } : lookup.stored(id);
    },

    async code(rawId) {
      const id = requireProcessId(rawId);
      const run = live.get(id);
      if (run) return run.code;
      const code = await storage.code(id);
      if (code === undefined) throw cyrnelError('process_not_found', `process ${id} not found`);
      return code;
    },

    stdout: async (id) => (await lookup.idleResults(requireProcessId(id))).stdout,
    stderr: async (id) => (await lookup.idleResults(requireProcessId(id))).stderr,
    output: async (id) => (await lookup.idleResults(requireProcessId(id))).output,

    async calls(rawId) {
      const id = requireProcessId(rawId);
      const run = await lookup.activeRun(id);
      if (run) return run.calls.map((call) => ({ ...call }));
      // Calls exist only for a stored process: its existence is checked only when there are none.
      const calls = await storage.calls(id);
      if (calls.length === 0) await lookup.stored(id);
      return calls;
    },
  };
}
