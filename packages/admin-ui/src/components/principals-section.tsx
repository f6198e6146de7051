import type { CyrnelClient } from '@cyrnel/client';
import { PRINCIPAL_KINDS, type PrincipalKind, type PrincipalRecord } from '@cyrnel/sdk/api';
import { useState } from 'preact/hooks';
import { ConfirmButton } from './confirm-button';
import { ErrorLine } from './error-line';
import { useAction } from './use-action';

/**
 * The principals (who keys belong to) with their kind and key count, creating one and deleting
 * one: the server refuses (409) while keys belong to it, and its message says so. `onChanged`
 * reloads the page's lists.
 */
export function PrincipalsSection({
  client,
  principals,
  onChanged,
}: {
  client: CyrnelClient;
  principals: readonly PrincipalRecord[];
  onChanged: () => Promise<void>;
}) {
  const [form, setForm] = useState<{ name: string; kind: PrincipalKind }>({ name: '', kind: 'person' });
  const { error, busy, run } = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await client.principals.create({ name: form.name, kind: form.kind });
      setForm({ ...form, name: '' });
      await onChanged();
    });
  };
  const remove = (principal: PrincipalRecord) =>
    run(async () => {
      await client.principals.delete(principal.id);
      await onChanged();
    });
  return (
    <section aria-label="Principals">
      <h2>Principals</h2>
      <p class="muted">
        Who the keys belong to: a person (who may hold a key per device) or an automation. A key created
        without one gets a principal of its own.
      </p>
      <ErrorLine error={error} />
      <div class="table-scroll">
        <table aria-label="Principals">
          <thead>
            <tr>
              <th>Name</th>
              <th>Kind</th>
              <th>Keys</th>
              <th>Created</th>
              <th>
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {principals.map((principal) => (
              <tr key={principal.id} data-testid="principal-row" data-id={principal.id}>
                <td>{principal.name}</td>
                <td>{principal.kind}</td>
                <td data-testid="principal-keys">{principal.keyCount}</td>
                <td>{principal.createdAt}</td>
                <td>
                  <ConfirmButton
                    subject={`principal ${principal.name}`}
                    busy={busy}
                    onConfirm={() => void remove(principal)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form aria-label="New principal" onSubmit={create}>
        <label for="principal-name">Name</label>
        <input
          id="principal-name"
          type="text"
          maxLength={100}
          value={form.name}
          onInput={(event) => setForm({ ...form, name: (event.target as HTMLInputElement).value })}
        />
        <label for="principal-kind">Kind</label>
        <select
          id="principal-kind"
          value={form.kind}
          onChange={(event) =>
            setForm({ ...form, kind: (event.target as HTMLSelectElement).value as PrincipalKind })
          }
        >
          {PRINCIPAL_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {kind}
            </option>
          ))}
        </select>
        <div class="row">
          <button type="submit" disabled={busy || form.name.trim() === ''}>
            Create the principal
          </button>
        </div>
      </form>
    </section>
  );
}
