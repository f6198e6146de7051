import { isPlainObject } from '@cyrnel/sdk';
import type { CallDecision } from '@cyrnel/sdk/api';
import { type CyrnelError, cyrnelError } from '../errors';
import type { Redactor } from '../secrets/redactor';
import type { CallPolicy } from './call-policy';
import type { CallRecords } from './call-records';
import type { LiveProcess } from './live-process';
import type { ProcessExecution } from './process-execution';

/** Approvals one run may wait for at once: more are refused, so a loop cannot flood the approvers. */
export const MAX_PENDING_APPROVALS = 100;

/** What {@link createGatekeeper} works with. */
export interface GatekeeperOptions {
  readonly records: CallRecords;
  readonly execution: ProcessExecution;
  /** Absent: every call is allowed. */
  readonly policy: CallPolicy | undefined;
  readonly redactor: Redactor | undefined;
}

/** The policies' decision on one call of the gate's path (null: no policies). */
export type Gatekeeper = (
  run: LiveProcess,
  serviceId: string,
  toolId: string,
  rawParameters: unknown,
) => Promise<CallDecision | null>;

/**
 * The gate's side of the policies: each call of a run is allowed, blocked (recorded, `tool_blocked`)
 * or asked, the program then waiting (state `waiting`, its deadline paused) until a person decides
 * or the approval expires.
 *
 * @example
 * ```ts
 * const gatekeep = createGatekeeper({ records, execution, policy, redactor });
 * const decision = await gatekeep(run, 'github', 'issues_create', parameters); // throws when refused
 * ```
 */
export function createGatekeeper(options: GatekeeperOptions): Gatekeeper {
  const { records, execution, policy } = options;
  /** Record a call the policies or a person refused, and throw its error to the program. */
  const refuse = async (
    run: LiveProcess,
    serviceId: string,
    toolId: string,
    decision: CallDecision,
    error: CyrnelError,
  ): Promise<never> => {
    const call = records.open(run, serviceId, toolId, undefined, decision);
    await call.started.catch(() => undefined);
    call.end({ ok: false, errorCode: error.code, errorReason: error.reason });
    throw error;
  };

  /**
   * The policies' decision on a call of the gate's path, made before anything leaves: allowed,
   * blocked (recorded, `tool_blocked`), or asked: the program waits (state `waiting`, its deadline
   * paused) until a person decides or the approval expires. Answers the decision to record.
   */
  const gatekeep = async (
    run: LiveProcess,
    serviceId: string,
    toolId: string,
    rawParameters: unknown,
  ): Promise<CallDecision | null> => {
    if (!policy) return null;
    const verdict = await policy.decide(run, serviceId, toolId);
    if (verdict.policy === 'allow') {
      policy.made(run, verdict);
      return policy.decision(verdict, 'allowed');
    }
    const qualified = `${serviceId}.${toolId}`;
    if (verdict.policy === 'block') {
      const why =
        verdict.rule === 'scope' ? "it is outside the key's scope" : `its policy blocks it (${verdict.rule})`;
      return refuse(
        run,
        serviceId,
        toolId,
        policy.decision(verdict, 'blocked'),
        cyrnelError('tool_blocked', `${qualified} may not be called: ${why}; nothing was sent`),
      );
    }
    if (run.approvals.size >= MAX_PENDING_APPROVALS)
      throw cyrnelError(
        'too_many_calls',
        `a process may wait for at most ${MAX_PENDING_APPROVALS} approvals at once`,
      );
    const parameters = isPlainObject(rawParameters) ? rawParameters : {};
    const asked = await policy.ask(
      run,
      serviceId,
      toolId,
      options.redactor ? (options.redactor.redactValue(parameters) as Record<string, unknown>) : parameters,
      verdict,
    );
    const stop = () => policy.cancel(asked.id);
    if (run.finished || run.ending.signal.aborted) stop();
    run.ending.signal.addEventListener('abort', stop, { once: true });
    execution.startWaiting(run, asked.id);
    run.emit({ type: 'approval', data: { approvalId: asked.id, serviceId, toolId } });
    let outcome: Awaited<typeof asked.outcome>;
    try {
      outcome = await asked.outcome;
    } finally {
      run.ending.signal.removeEventListener('abort', stop);
      execution.stopWaiting(run, asked.id);
    }
    if (run.finished || run.ending.signal.aborted)
      throw cyrnelError('process_not_running', `execution ${run.record.id} is no longer running`);
    const approval = { id: asked.id, outcome };
    if (outcome.state === 'approved') {
      if (outcome.remember === 'process') policy.remember(run, qualified);
      policy.made(run, verdict);
      return policy.decision(verdict, 'approved', approval);
    }
    const denied = outcome.state === 'denied';
    return refuse(
      run,
      serviceId,
      toolId,
      policy.decision(verdict, outcome.state, approval),
      denied
        ? cyrnelError(
            'approval_denied',
            `${qualified} was denied by a person${outcome.note ? `: ${outcome.note}` : ''}`,
          )
        : cyrnelError(
            'approval_expired',
            `nobody decided the approval of ${qualified} (${asked.id}) in time`,
          ),
    );
  };
  return gatekeep;
}
