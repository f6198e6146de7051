import type { CyrnelClient } from '@cyrnel/client';
import { ApprovalTable } from '../components/approval-table';
import { ErrorLine } from '../components/error-line';
import { usePoll } from '../components/use-poll';

/**
 * `#/approvals`: the calls programs wait at and the plans waiting for a decision, live (asked
 * again every two seconds), and the latest decided ones.
 */
export function ApprovalsPage({ client }: { client: CyrnelClient }) {
  const { value, error } = usePoll(async () => {
    const [pending, latest] = await Promise.all([
      client.approvals.list({ state: 'pending', limit: 100 }),
      client.approvals.list({ limit: 20 }),
    ]);
    return {
      pending: pending.items,
      decided: latest.items.filter((approval) => approval.state !== 'pending'),
    };
  }, []);
  return (
    <>
      <h1>Approvals</h1>
      <ErrorLine error={error} />
      <h2>Pending</h2>
      {value?.pending.length === 0 ? (
        <p class="empty" data-testid="no-pending">
          Nothing waits for a decision.
        </p>
      ) : value ? (
        <ApprovalTable approvals={value.pending} label="Pending approvals" />
      ) : null}
      <h2>Decided</h2>
      {value?.decided.length === 0 ? <p class="empty">No decision yet.</p> : null}
      {value && value.decided.length > 0 ? (
        <ApprovalTable approvals={value.decided} label="Decided approvals" />
      ) : null}
    </>
  );
}
