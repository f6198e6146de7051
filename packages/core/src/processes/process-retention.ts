import type { ModuleLogger } from '@cyrnel/sdk';
import type { ApprovalStorage } from '../approvals/approval-storage';
import type { ProcessLimits } from './process-limits';
import type { ProcessStorage } from './process-storage';

/** Options of {@link createProcessRetention}. */
export interface ProcessRetentionOptions {
  readonly storage: ProcessStorage;
  readonly limits: ProcessLimits;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** Decided approvals and plans are kept as long as processes (`retentionMs`), then deleted. */
  readonly approvals?: Pick<ApprovalStorage, 'pruneApprovals'>;
}

/** The pruning of idle processes past the retention, in the background. */
export interface ProcessRetention {
  /** Prune now and then every {@link retentionIntervalMs}; nothing when retention is off. */
  start(): void;
  /** Stop the timer and wait for a pass in progress to finish its batch. */
  stop(): Promise<void>;
  /** One whole pass now (batch after batch, the event loop turning between them); answers how many went. */
  prune(): Promise<number>;
}

/**
 * How often retention runs: a quarter of the retention age, between 0.1 s and 60 s (60 s when
 * only the count per key is bounded), so nothing outlives its retention by much.
 */
export function retentionIntervalMs(limits: ProcessLimits): number {
  if (limits.retentionMs <= 0) return 60_000;
  return Math.min(60_000, Math.max(100, Math.floor(limits.retentionMs / 4)));
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Retention of idle processes: every so often, delete (with their tool calls) the idle processes
 * last changed before `retentionMs` ago and those of a key beyond its newest `retentionPerKey`,
 * `retentionBatch` at a time with a turn of the event loop between batches, so neither a
 * SQLite file's synchronous writes nor a long backlog holds the host. With several hosts each
 * prunes; the store deletes each process once.
 *
 * @example
 * ```ts
 * const retention = createProcessRetention({ storage, limits, logger, now: () => new Date() });
 * retention.start();
 * ```
 */
export function createProcessRetention(options: ProcessRetentionOptions): ProcessRetention {
  const { storage, limits, logger, now } = options;
  const enabled = limits.retentionMs > 0 || limits.retentionPerKey > 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;

  const pass = async () => {
    const rule = {
      ...(limits.retentionMs > 0
        ? { idleBefore: new Date(now().getTime() - limits.retentionMs).toISOString() }
        : {}),
      ...(limits.retentionPerKey > 0 ? { keepPerKey: limits.retentionPerKey } : {}),
      limit: Math.max(1, limits.retentionBatch),
    };
    let total = 0;
    while (!stopped) {
      const deleted = await storage.pruneIdle(rule);
      total += deleted;
      if (deleted < rule.limit) break;
      await turn();
    }
    if (total > 0) logger.info('process: pruned idle processes past the retention', { count: total });
    if (limits.retentionMs > 0 && options.approvals && !stopped)
      await options.approvals.pruneApprovals(rule.idleBefore as string);
    return total;
  };

  const prune = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  const tick = () => {
    prune().catch((error: unknown) =>
      logger.warn('process: pruning failed; retrying at the next interval', { error: String(error) }),
    );
  };

  return {
    start() {
      if (!enabled || timer || stopped) return;
      tick();
      timer = setInterval(tick, retentionIntervalMs(limits));
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
    prune,
  };
}
