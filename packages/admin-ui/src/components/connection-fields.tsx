import type { PrincipalRecord } from '@cyrnel/sdk/api';

/**
 * The principals this key may see: the list for an admin key, `undefined` for any other (the
 * server answers 403 to `GET /principals`): such a key makes connections of its own principal only.
 */
export type KnownPrincipals = readonly PrincipalRecord[] | undefined;

/**
 * The `owner` of a request from an {@link OwnerSelect}'s value: `''` is shared (`null`), another
 * value a principal's id; nothing (the server's default: the key's own principal) when the
 * principals are unknown.
 */
export function ownerOfChoice(choice: string, principals: KnownPrincipals): { owner?: string | null } {
  if (principals === undefined) return {};
  return { owner: choice === '' ? null : choice };
}

/** The choice of an {@link OwnerSelect} that stands for `owner`. */
export const choiceOfOwner = (owner: string | null): string => owner ?? '';

/**
 * Who a connection belongs to: shared (every principal) or one principal, chosen by name. Without
 * the principals (a key other than an admin key) the only choice is the key's own principal.
 */
export function OwnerSelect({
  id,
  value,
  principals,
  onChange,
}: {
  id: string;
  value: string;
  principals: KnownPrincipals;
  onChange: (choice: string) => void;
}) {
  return (
    <select id={id} value={value} onChange={(event) => onChange((event.target as HTMLSelectElement).value)}>
      {principals === undefined ? (
        <option value="">this key's principal</option>
      ) : (
        <>
          <option value="">shared (every principal)</option>
          {principals.map((principal) => (
            <option key={principal.id} value={principal.id}>
              {principal.name} ({principal.kind})
            </option>
          ))}
        </>
      )}
    </select>
  );
}

/**
 * A text area for a set of secrets as a JSON object: write-only (the API never answers secret
 * values, and the form that holds it empties it once the server took them), not spell-checked,
 * not filled in by the browser.
 */
export function SecretsField({
  id,
  label,
  value,
  names,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  /** The secrets the service's schema names, shown as an example. */
  names: readonly string[];
  onChange: (text: string) => void;
}) {
  const example = `{ "${names[0] ?? 'token'}": "…" }`;
  return (
    <>
      <label for={id}>{label}</label>
      <p class="muted">
        A JSON object, never shown again (only which secrets are set). This service's secrets:{' '}
        {names.length > 0 ? names.join(', ') : 'none declared'}. For example: <code>{example}</code>
      </p>
      <textarea
        id={id}
        class="code small"
        spellcheck={false}
        autocomplete="off"
        value={value}
        onInput={(event) => onChange((event.target as HTMLTextAreaElement).value)}
      />
    </>
  );
}
