import type { CyrnelClient } from '@cyrnel/client';
import type { ApprovalDetail, DecideApprovalRequest } from '@cyrnel/sdk/api';
import { ApprovalFacts } from '../components/approval-facts';
import { CodeListing } from '../components/code-listing';
import { DecisionForm } from '../components/decision-form';
import { ErrorLine } from '../components/error-line';
import { PlanTools } from '../components/plan-tools';
import { useAction } from '../components/use-action';
import { usePoll } from '../components/use-poll';

/** The lines to mark: the call's, or every call site of a plan. */
function markedLines(detail: ApprovalDetail): number[] {
  if (detail.kind === 'call') return detail.line === null ? [] : [detail.line];
  return [
    ...(detail.tools ?? []).flatMap((tool) => tool.lines),
    ...(detail.unknown ?? []).map((site) => site.line),
  ];
}

/**
 * `#/approvals/<id>`: one approval: the call's parameters (or a plan's tools), the program's code
 * with the call's line marked, then approving or denying it (read first, then decide); followed
 * live until it is decided.
 */
export function ApprovalPage({ client, id }: { client: CyrnelClient; id: string }) {
  const poll = usePoll(
    () => client.approvals.get(id),
    [id],
    (detail) => detail.state !== 'pending',
  );
  const action = useAction();
  const detail = poll.value;
  if (!detail) return <ErrorLine error={poll.error} />;
  const decide = (request: DecideApprovalRequest) =>
    action.run(async () => {
      const decided =
        detail.kind === 'plan'
          ? await client.approvals.decidePlan(id, request)
          : await client.approvals.decide(id, request);
      poll.setValue(decided);
      // A poll already on its way may answer the state from before the decision.
      poll.refresh();
    });
  return (
    <>
      <h1>{detail.kind === 'plan' ? 'Plan of a program' : `Call of ${detail.serviceId}.${detail.toolId}`}</h1>
      <ErrorLine error={action.error ?? poll.error} />
      <ApprovalFacts approval={detail} />
      {detail.kind === 'call' ? (
        <>
          <h2>Parameters</h2>
          <pre data-testid="parameters">{JSON.stringify(detail.parameters, null, 2)}</pre>
        </>
      ) : (
        <PlanTools tools={detail.tools ?? []} unknown={detail.unknown ?? []} />
      )}
      <h2>Code</h2>
      {detail.kind === 'call' && detail.line === null ? (
        <p class="muted">The line of the call is not known.</p>
      ) : null}
      <CodeListing code={detail.code} marked={markedLines(detail)} />
      {detail.state === 'pending' ? (
        <>
          <h2>Decision</h2>
          <DecisionForm kind={detail.kind} busy={action.busy} onDecide={decide} />
        </>
      ) : null}
    </>
  );
}
