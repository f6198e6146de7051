/**
 * Who decided an approval, and their note: a key id, or the server's own key (`--api-key`, or
 * a server without keys), which has no id. Notes are text from people: shown as text.
 */
export function DecidedBy({ by, note }: { by: string | null | undefined; note?: string | null | undefined }) {
  return (
    <span data-testid="decided-by">
      {by ? (
        <>
          by key <code>{by}</code>
        </>
      ) : (
        "by the server's key"
      )}
      {note ? <q class="note">{note}</q> : null}
    </span>
  );
}
