import { useState } from 'preact/hooks';

/**
 * A button for something that cannot be undone, asking once: "Delete…" turns into "Really delete"
 * and "Cancel". `subject` names the thing in the buttons' accessible names (`Delete key ci bot`),
 * so rows of a table can be told apart.
 */
export function ConfirmButton({
  subject,
  busy,
  onConfirm,
}: {
  subject: string;
  busy: boolean;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        class="secondary"
        aria-label={`Delete ${subject}`}
        onClick={() => setAsking(true)}
      >
        Delete…
      </button>
    );
  }
  return (
    <span class="row">
      <button
        type="button"
        class="danger"
        disabled={busy}
        aria-label={`Really delete ${subject}`}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Really delete
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
