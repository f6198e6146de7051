import { type DecideApprovalRequest, MAX_APPROVAL_NOTE_LENGTH } from '@cyrnel/sdk/api';
import { useState } from 'preact/hooks';

/** What a call's approval may remember: nothing, this process, or every later process of the key. */
const REMEMBER: [DecideApprovalRequest['remember'] | '', string][] = [
  ['', 'No: ask again next time'],
  ['process', 'This process: its later calls of this tool are approved'],
  ['key', 'This key: its calls of this tool are approved (until the server restarts)'],
];

/**
 * Approve or deny, with an optional note kept in the audit; a call's approval may also be
 * remembered (a plan is approved as a whole, once).
 */
export function DecisionForm({
  kind,
  busy,
  onDecide,
}: {
  kind: 'call' | 'plan';
  busy: boolean;
  onDecide: (request: DecideApprovalRequest) => void;
}) {
  const [note, setNote] = useState('');
  const [remember, setRemember] = useState<DecideApprovalRequest['remember'] | ''>('');
  const decide = (decision: DecideApprovalRequest['decision']) =>
    onDecide({
      decision,
      ...(note.trim() ? { note: note.trim() } : {}),
      ...(kind === 'call' && decision === 'approve' && remember ? { remember } : {}),
    });
  return (
    <form aria-label="Decision" onSubmit={(event) => event.preventDefault()}>
      <label for="decision-note">Note (optional, kept with the decision)</label>
      <textarea
        id="decision-note"
        rows={2}
        maxLength={MAX_APPROVAL_NOTE_LENGTH}
        value={note}
        onInput={(event) => setNote((event.target as HTMLTextAreaElement).value)}
      />
      {kind === 'call' ? (
        <>
          <label for="decision-remember">Remember the approval</label>
          <select
            id="decision-remember"
            value={remember}
            onChange={(event) =>
              setRemember((event.target as HTMLSelectElement).value as DecideApprovalRequest['remember'] | '')
            }
          >
            {REMEMBER.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </>
      ) : null}
      <div class="row">
        <button type="button" disabled={busy} onClick={() => decide('approve')}>
          Approve
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => decide('deny')}>
          Deny
        </button>
      </div>
    </form>
  );
}
