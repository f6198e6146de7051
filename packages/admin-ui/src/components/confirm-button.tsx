import { useState } from 'preact/hooks';

/**
 * A button for something that cannot be undone, asking once: "Delete…" turns into "Really delete"
 * and "Cancel". `subject` names the thing in the buttons' accessible names (`Delete key ci bot`),
 * so rows of a table can be told apart; `verb` says what is done (`Revoke`: "Revoke…", "Really
 * revoke").
 */
export function ConfirmButton({
  subject,
  busy,
  onConfirm,
  verb = 'Delete',
}: {
  subject: string;
  busy: boolean;
  onConfirm: () => void;
  verb?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        class="secondary"
        aria-label={`${verb} ${subject}`}
        onClick={() => setAsking(true)}
      >
        {verb}…
      </button>
    );
  }
  return (
    <span class="row">
      <button
        type="button"
        class="danger"
        disabled={busy}
        aria-label={`Really ${verb.toLowerCase()} ${subject}`}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Really {verb.toLowerCase()}
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
