import type { CyrnelClient } from '@cyrnel/client';
import type { KeyRole } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { may } from './access';
import { CallsTable } from './calls-table';
import { RunEfficiency } from './efficiency';
import { ErrorLine } from './error-line';
import { useAction } from './use-action';
import { useProcess } from './use-process';

/**
 * The parameters of the calls that waited for an approval, by approval id, for a key that may read
 * approvals (the only place the API keeps a call's parameters); none for another key.
 */
function useApprovalParameters(client: CyrnelClient, approvalIds: readonly string[], role: KeyRole) {
  const [parameters, setParameters] = useState<ReadonlyMap<string, unknown>>(new Map());
  const wanted = may(role, 'approver') ? approvalIds.filter((id) => !parameters.has(id)) : [];
  useEffect(() => {
    if (wanted.length === 0) return;
    let stopped = false;
    void Promise.all(
      wanted.map((id) =>
        client.approvals.get(id).then(
          (approval) => [id, approval.parameters] as const,
          () => undefined,
        ),
      ),
    ).then((found) => {
      if (stopped) return;
      setParameters((before) => {
        const next = new Map(before);
        for (const entry of found) if (entry && entry[1] !== null) next.set(entry[0], entry[1]);
        return next;
      });
    });
    return () => {
      stopped = true;
    };
  }, [wanted.join(' ')]);
  return parameters;
}

/**
 * One process, live while it runs: its state (a link to the approval it waits for, for a key that
 * may open it), its data-flow labels, a kill button, output, its efficiency (bytes read and returned,
 * times), tool calls with their answers, sizes, durations and policy decisions, stdout, stderr.
 */
export function ProcessView({ client, id, role }: { client: CyrnelClient; id: number; role: KeyRole }) {
  const view = useProcess(client, id);
  const { error, run } = useAction();
  const running = view.record !== undefined && view.record.state !== 'idle';
  const approvalIds = view.calls.flatMap((call) =>
    call.decision?.approvalId ? [call.decision.approvalId] : [],
  );
  const parameters = useApprovalParameters(client, approvalIds, role);
  return (
    <section aria-live="polite" aria-label="The run">
      <ErrorLine error={view.error ?? error} />
      {view.record ? (
        <p>
          Process {view.record.id}: <strong data-testid="process-state">{view.record.state}</strong>
          {view.record.exitState ? (
            <>
              {' '}
              — <strong data-testid="exit-state">{view.record.exitState}</strong>
            </>
          ) : null}
          {view.record.error ? <span class="error">{view.record.error}</span> : null}
          {view.record.hostId ? <span class="muted"> on {view.record.hostId}</span> : null}
        </p>
      ) : null}
      {view.record?.state === 'waiting' && view.record.approvalId ? (
        <p data-testid="waiting-approval">
          Waits at a tool call for a person's decision
          {may(role, 'approver') ? (
            <>
              : <a href={`#/approvals/${encodeURIComponent(view.record.approvalId)}`}>open the approval</a>
            </>
          ) : (
            ' (an approver or admin key decides it).'
          )}
        </p>
      ) : null}
      {view.record && view.record.labels.length > 0 ? (
        <p>
          Data-flow labels of the tools it called:{' '}
          <span data-testid="process-labels">{view.record.labels.join(', ')}</span>
        </p>
      ) : null}
      {running ? (
        <button
          type="button"
          class="danger"
          onClick={() => run(async () => void (await client.processes.kill(id)))}
        >
          Kill
        </button>
      ) : null}
      <details open>
        <summary>
          <h2 class="inline">Output</h2>
        </summary>
        <pre data-testid="output">
          {view.output === undefined ? '' : JSON.stringify(view.output, null, 2)}
        </pre>
      </details>
      {view.record ? <RunEfficiency metrics={view.record.metrics} /> : null}
      <h2>Tool calls</h2>
      <CallsTable
        calls={view.calls}
        ended={view.record?.state === 'idle'}
        parameters={parameters}
        linkApprovals={may(role, 'approver')}
      />
      <h2>stdout</h2>
      <pre data-testid="stdout">{view.stdout}</pre>
      {view.stderr ? (
        <>
          <h2>stderr</h2>
          <pre>{view.stderr}</pre>
        </>
      ) : null}
    </section>
  );
}
