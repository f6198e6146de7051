import type { ModuleLogger } from '@cyrnel/sdk';
import type { LocalRuns } from '../processes/local-runs';
import { killEnd } from '../processes/process-errors';
import type { ProcessStorage } from '../processes/process-storage';

/** Kills other hosts asked of this one, taken from the store. */
export interface KillRequests {
  /** Kill the runs of this host a kill was asked for elsewhere; one look at a time. */
  take(hostId: string): void;
}

/** Create the owner's side of kills asked on other hosts (`ProcessStorage.requestKill`). */
export function createKillRequests(
  storage: ProcessStorage,
  local: LocalRuns,
  logger: ModuleLogger,
): KillRequests {
  const { live } = local;
  let taking = false;
  return {
    take(hostId) {
      if (taking || local.closing() || live.size === 0) return;
      taking = true;
      void storage
        .takeKillRequests(hostId)
        .then((requests) => {
          const runs = requests
            .map(({ id, reason }) => ({ run: live.get(id), reason }))
            .filter(({ run }) => run !== undefined && !run.finished);
          // Queued ones first: a running one ended first frees its slot for the next queued run.
          runs.sort(
            (a, b) => Number(b.run?.record.state === 'queued') - Number(a.run?.record.state === 'queued'),
          );
          for (const { run, reason } of runs) if (run) local.kill(run, killEnd(reason).errorReason);
        })
        .catch((error: unknown) =>
          logger.error('process: reading kill requests failed', { error: String(error) }),
        )
        .finally(() => {
          taking = false;
        });
    },
  };
}
