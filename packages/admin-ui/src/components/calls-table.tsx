import { type CallDecision, formatBytes, type ToolCallRecord } from '@cyrnel/sdk/api';
import { DecidedBy } from './decided-by';
import { PolicyPill } from './policy-pill';

/** How the policies decided a call: its policy and rule, the outcome, who approved or denied it. */
function Decision({ decision, linkApprovals }: { decision: CallDecision | null; linkApprovals: boolean }) {
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
      {decision.approvalId && linkApprovals ? (
        <>
          {' '}
          <a href={`#/approvals/${encodeURIComponent(decision.approvalId)}`}>approval</a>
        </>
      ) : null}
    </span>
  );
}

/** A call's answer: ok, the error's code and reason, or none yet (or never: a crash cut the run). */
function Outcome({ call, ended }: { call: ToolCallRecord; ended: boolean }) {
  if (call.ok === true) return <span class="pill on">ok</span>;
  if (call.ok === null) {
    return ended ? (
      <span class="pill bad">no answer (the run was cut before it came)</span>
    ) : (
      <span class="pill ask">waiting for its answer</span>
    );
  }
  return (
    <span class="pill bad">
      {call.errorCode ?? 'error'}
      {call.errorReason ? `: ${call.errorReason}` : ''}
    </span>
  );
}

/**
 * A process's tool calls: the tool, when it started, how long it took, its answer (ok or the
 * error's code and reason), the bytes of its answer delivered into the sandbox, the policy decision, and its parameters where the API has them (the
 * calls that waited for an approval: `parameters` of `GET /approvals/:id`). The API records
 * neither the parameters of other calls nor any call's answer, which the table says.
 */
export function CallsTable({
  calls,
  ended,
  parameters,
  linkApprovals,
}: {
  calls: ToolCallRecord[];
  /** The process is idle: a call without an answer will never get one. */
  ended: boolean;
  /** The parameters of the calls that waited for an approval, by approval id. */
  parameters: ReadonlyMap<string, unknown>;
  /** The key may open approvals (an approver or admin key). */
  linkApprovals: boolean;
}) {
  if (calls.length === 0) return <p class="empty">No tool call.</p>;
  return (
    <>
      <div class="table-scroll">
        <table data-testid="calls">
          <thead>
            <tr>
              <th>Tool</th>
              <th>Started</th>
              <th>Duration</th>
              <th>Answer</th>
              <th>Bytes</th>
              <th>Decision</th>
              <th>Parameters</th>
            </tr>
          </thead>
          <tbody>
            {calls.map((call, index) => {
              const approvalId = call.decision?.approvalId;
              const shown = approvalId ? parameters.get(approvalId) : undefined;
              return (
                <tr key={index} data-testid="call-row">
                  <td>
                    {call.serviceId}.{call.toolId}
                  </td>
                  <td>{call.startedAt}</td>
                  <td data-testid="call-duration">{call.ok === null ? '—' : `${call.durationMs} ms`}</td>
                  <td data-testid="call-answer">
                    <Outcome call={call} ended={ended} />
                  </td>
                  <td data-testid="call-bytes">
                    {call.resultBytes === null ? '—' : formatBytes(call.resultBytes)}
                  </td>
                  <td>
                    <Decision decision={call.decision} linkApprovals={linkApprovals} />
                  </td>
                  <td data-testid="call-parameters">
                    {shown === undefined ? (
                      <span class="muted">not recorded</span>
                    ) : (
                      <pre class="small">{JSON.stringify(shown, null, 2)}</pre>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p class="muted">
        The server records each call's tool, start, duration, outcome (ok, or the error's code and reason),
        the size of its answer and its policy decision. It keeps no call's answer, and the parameters only of
        a call that waited for an approval (shown to an approver or admin key).
      </p>
    </>
  );
}
