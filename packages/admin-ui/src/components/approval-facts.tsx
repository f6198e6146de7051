import type { ApprovalRecord, ApprovalState } from '@cyrnel/sdk/api';
import { DecidedBy } from './decided-by';

const STATE_CLASS: Readonly<Record<ApprovalState, string>> = {
  pending: 'ask',
  approved: 'on',
  denied: 'bad',
  expired: 'off',
  used: 'on',
};

/** An approval's state as a badge. */
export function ApprovalStatePill({ state }: { state: ApprovalState }) {
  return (
    <span class={`pill ${STATE_CLASS[state]}`} data-testid="approval-state">
      {state}
    </span>
  );
}

/** What an approval is about and where it stands: tool, process, key, reason, times, decision. */
export function ApprovalFacts({ approval }: { approval: ApprovalRecord }) {
  const remembered =
    approval.remember === 'process'
      ? 'for this process'
      : approval.remember === 'key'
        ? 'for this key'
        : null;
  return (
    <dl class="facts">
      <dt>State</dt>
      <dd>
        <ApprovalStatePill state={approval.state} />
      </dd>
      {approval.kind === 'call' ? (
        <>
          <dt>Tool</dt>
          <dd>
            <code data-testid="approval-tool">
              {approval.serviceId}.{approval.toolId}
            </code>
          </dd>
        </>
      ) : null}
      {approval.processId !== null ? (
        <>
          <dt>Process</dt>
          <dd>
            <a href={`#/processes/${approval.processId}`}>#{approval.processId}</a>
          </dd>
        </>
      ) : null}
      <dt>Asked by</dt>
      <dd>{approval.keyId ? <code>{approval.keyId}</code> : "the server's key"}</dd>
      <dt>Reason</dt>
      <dd data-testid="approval-reason">{approval.reason}</dd>
      <dt>Created</dt>
      <dd>{approval.createdAt}</dd>
      <dt>{approval.state === 'pending' ? 'Expires' : 'Expiry'}</dt>
      <dd>{approval.expiresAt}</dd>
      {approval.decidedAt ? (
        <>
          <dt>Decided</dt>
          <dd>
            {approval.decidedAt} <DecidedBy by={approval.decidedBy} note={approval.note} />
            {remembered ? <span class="muted"> (remembered {remembered})</span> : null}
          </dd>
        </>
      ) : null}
    </dl>
  );
}
