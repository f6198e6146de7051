import type { CallDecision, ToolCallRecord } from '@cyrnel/sdk/api';
import { DecidedBy } from './decided-by';
import { PolicyPill } from './policy-pill';

/** How the policies decided a call: its policy and rule, the outcome, who approved or denied it. */
function Decision({ decision }: { decision: CallDecision | null }) {
  if (decision === null) return <span class="muted">not recorded</span>;
  const person = decision.outcome === 'approved' || decision.outcome === 'denied';
  return (
    <span data-testid="call-decision">
      <PolicyPill policy={decision.policy} /> <span class="muted">by rule</span> {decision.rule}
      {decision.detail ? ` (${decision.detail})` : ''}: <strong>{decision.outcome}</strong>
      {person ? (
        <>
          {' '}
          <DecidedBy by={decision.decidedBy} note={decision.note} />
        </>
      ) : null}
      {decision.approvalId ? (
        <>
          {' '}
          <a href={`#/approvals/${encodeURIComponent(decision.approvalId)}`}>approval</a>
        </>
      ) : null}
    </span>
  );
}

/** A process's tool calls: the tool, ok or the failure's reason, the duration, the policy decision. */
export function CallsTable({ calls }: { calls: ToolCallRecord[] }) {
  if (calls.length === 0) return <p class="empty">No tool call.</p>;
  return (
    <div class="table-scroll">
      <table data-testid="calls">
        <thead>
          <tr>
            <th>Tool</th>
            <th>Result</th>
            <th>Duration</th>
            <th>Decision</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((call, index) => (
            <tr key={index}>
              <td>
                {call.serviceId}.{call.toolId}
              </td>
              <td>
                {call.ok ? (
                  <span class="pill on">ok</span>
                ) : (
                  <span class="pill bad">{call.errorReason ?? 'failed'}</span>
                )}
              </td>
              <td>{call.durationMs} ms</td>
              <td>
                <Decision decision={call.decision} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
