import type { CyrnelClient } from '@cyrnel/client';
import { CallsTable } from './calls-table';
import { ErrorLine } from './error-line';
import { useAction } from './use-action';
import { useProcess } from './use-process';

/**
 * One process, live while it runs: its state (a link to the approval it waits for), its data-flow
 * labels, a kill button, output, tool calls with their policy decisions, stdout, stderr.
 */
export function ProcessView({ client, id }: { client: CyrnelClient; id: number }) {
  const view = useProcess(client, id);
  const { error, run } = useAction();
  const running = view.record !== undefined && view.record.state !== 'idle';
  return (
    <section aria-live="polite">
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
          Waits at a tool call for a person's decision:{' '}
          <a href={`#/approvals/${encodeURIComponent(view.record.approvalId)}`}>open the approval</a>
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
      <h2>Tool calls</h2>
      <CallsTable calls={view.calls} />
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
