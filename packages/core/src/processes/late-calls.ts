import type { ModuleLogger } from '@cyrnel/sdk';
import type { CallDecision, ToolCallRecord } from '@cyrnel/sdk/api';
import { type CallOutcome, endedFields, startedCall } from './call-records';
import type { ProcessStorage } from './process-storage';

/** A call recorded after its run ended: its row is appended to the process's stored calls. */
export interface LateCall {
  /** Resolves once the start is stored (or was found to belong nowhere: then it is logged). */
  readonly started: Promise<void>;
  /** Record the answer over the start's row (once). */
  end(outcome: Required<Pick<CallOutcome, 'ok'>> & CallOutcome): void;
}

/** What a late call is: a start the egress gateway made under a decision its run kept. */
export interface LateStart {
  readonly processId: number;
  readonly serviceId: string;
  readonly toolId: string;
  readonly startedMs: number;
  readonly decision: CallDecision | null;
  /** The ended run's own last write, which a late row must follow (its indexes come first). */
  readonly after?: Promise<unknown>;
}

/** The calls recorded after their run ended. */
export interface LateCalls {
  open(start: LateStart): LateCall;
}

/**
 * Record calls that reach the host after their run settled. A worker of the egress gateway makes
 * the calls of a kept decision on its own and reports them in batches; the run's end waits for
 * what the workers hold (their `sync`) only so long, so a worker stalled past it reports a call
 * whose request left after the run's calls were written. Such a call is appended to the stored
 * calls (`ok: null` until its answer is written over it), never dropped: the audit lists every
 * request that left. When the process ran again meanwhile (its calls are the new run's) or is
 * gone, the call is logged instead. Writes of one process go one after another.
 *
 * @example
 * ```ts
 * const late = createLateCalls(storage, logger);
 * const call = late.open({ processId: 7, serviceId: 'shop', toolId: 'getUser', startedMs, decision: null });
 * await call.started;
 * call.end({ ok: true, durationMs: 12, resultBytes: 40 });
 * ```
 */
export function createLateCalls(storage: ProcessStorage, logger: ModuleLogger): LateCalls {
  const chains = new Map<number, Promise<unknown>>();
  /**
   * Per process while its late writes go on: the index its next late call takes, for the run that
   * ended at `completedAt` (the stored calls are read once, not at every call of a burst).
   */
  const next = new Map<number, { readonly completedAt: string | null; index: number }>();
  const then = (id: number, step: () => Promise<void>): Promise<void> => {
    const previous = chains.get(id) ?? Promise.resolve();
    const done = previous.then(step).catch((error: unknown) => {
      logger.error('process: a late tool call could not be recorded', { id, error: String(error) });
    });
    chains.set(id, done);
    void done.then(() => {
      if (chains.get(id) !== done) return;
      chains.delete(id);
      next.delete(id);
    });
    return done;
  };

  return {
    open({ processId: id, serviceId, toolId, startedMs, decision, after }) {
      const call = startedCall(serviceId, toolId, startedMs, decision);
      let index: number | undefined;
      const started = then(id, async () => {
        await after;
        const record = await storage.get(id);
        // Gone, or running again: the calls stored are another run's.
        if (record?.state !== 'idle') {
          logger.warn('process: a tool call reported after its run ended was not recorded', {
            id,
            serviceId,
            toolId,
            reason: record ? 'the process runs again' : 'the process is gone',
          });
          return;
        }
        let known = next.get(id);
        if (known?.completedAt !== record.completedAt) {
          known = { completedAt: record.completedAt, index: (await storage.calls(id)).length };
          next.set(id, known);
        }
        await storage.openCalls(id, [{ index: known.index, call: { ...call } }]);
        index = known.index++;
        logger.warn('process: a tool call reported after its run ended was recorded', {
          id,
          serviceId,
          toolId,
        });
      });
      let ended = false;
      return {
        started,
        end(outcome) {
          if (ended) return;
          ended = true;
          void then(id, async () => {
            if (index === undefined) return;
            // The gateway measured it (no clock here knows when the request left).
            const done: ToolCallRecord = { ...call, ...endedFields(outcome, 0) };
            await storage.openCalls(id, [], [{ index, call: done }]);
          });
        },
      };
    },
  };
}
