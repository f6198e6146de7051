import type { ApprovalRecord } from '@cyrnel/sdk/api';
import { ApprovalStatePill } from './approval-facts';
import { DecidedBy } from './decided-by';

/** What an approval is about, as its link text: the tool of a call, or a plan. */
function subject(approval: ApprovalRecord): string {
  return approval.kind === 'plan' ? 'plan of a program' : `${approval.serviceId}.${approval.toolId}`;
}

/**
 * Approvals as rows linking to their pages: what, which process, why, when; the decided ones
 * with who decided and the note.
 */
export function ApprovalTable({ approvals, label }: { approvals: readonly ApprovalRecord[]; label: string }) {
  return (
    <div class="table-scroll">
      <table aria-label={label}>
        <thead>
          <tr>
            <th>Approval</th>
            <th>Process</th>
            <th>Reason</th>
            <th>Created</th>
            <th>State</th>
          </tr>
        </thead>
        <tbody>
          {approvals.map((approval) => (
            <tr key={approval.id} data-testid="approval-row">
              <td>
                <a href={`#/approvals/${encodeURIComponent(approval.id)}`}>{subject(approval)}</a>
              </td>
              <td>
                {approval.processId === null ? (
                  ''
                ) : (
                  <a href={`#/processes/${approval.processId}`}>#{approval.processId}</a>
                )}
              </td>
              <td>{approval.reason}</td>
              <td>{approval.createdAt}</td>
              <td>
                <ApprovalStatePill state={approval.state} />{' '}
                {approval.state === 'pending' ? (
                  <span class="muted">until {approval.expiresAt}</span>
                ) : approval.decidedAt ? (
                  <DecidedBy by={approval.decidedBy} note={approval.note} />
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
