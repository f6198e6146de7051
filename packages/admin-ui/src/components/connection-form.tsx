import type { CyrnelClient } from '@cyrnel/client';
import type { CreateConnectionRequest } from '@cyrnel/sdk/api';
import { useState } from 'preact/hooks';
import { type KnownPrincipals, OwnerSelect, ownerOfChoice, SecretsField } from './connection-fields';
import { ErrorIssues } from './error-issues';
import { ErrorLine } from './error-line';
import { parseJsonObject } from './json-object';
import { useAction } from './use-action';

const EMPTY = { name: '', owner: '', secrets: '' };

/** The request the form describes, or why it is none (secrets that are not a JSON object). */
function requestOf(form: typeof EMPTY, principals: KnownPrincipals): CreateConnectionRequest | Error {
  const request: CreateConnectionRequest = {
    name: form.name.trim(),
    ...ownerOfChoice(form.owner, principals),
  };
  if (form.secrets.trim()) {
    const secrets = parseJsonObject(form.secrets, 'The secrets field', { example: '{ "token": "…" }' });
    if (secrets instanceof Error) return secrets;
    request.secrets = secrets;
  }
  return request;
}

/**
 * Adding a connection to a service: its name, its owner (shared or a principal) and its secrets as
 * a JSON object, checked as JSON here (the reason never quotes them) and against the service's
 * secrets schema by the server, whose messages are shown (409 `connection_exists` for a name in
 * use). The secrets field is emptied once they were sent, whatever the answer; the name and
 * owner stay when the server refused them.
 */
export function ConnectionForm({
  client,
  serviceId,
  principals,
  secretNames,
  onCreated,
}: {
  client: CyrnelClient;
  serviceId: string;
  principals: KnownPrincipals;
  secretNames: readonly string[];
  onCreated: () => void;
}) {
  const [form, setForm] = useState(EMPTY);
  const { error, busy, run, setError } = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    const request = requestOf(form, principals);
    if (request instanceof Error) return setError(request);
    void run(async () => {
      try {
        await client.connections.create(serviceId, request);
        setForm(EMPTY);
        onCreated();
      } finally {
        // Sent: the secrets leave the page whatever the answer (a refused set is typed again).
        setForm((current) => ({ ...current, secrets: '' }));
      }
    });
  };
  return (
    <form aria-label="New connection" onSubmit={create}>
      <label for="connection-name">Name</label>
      <p class="muted">Lowercase letters, digits, - and _, starting with a letter (e.g. work, alice).</p>
      <input
        id="connection-name"
        type="text"
        maxLength={64}
        autocomplete="off"
        value={form.name}
        onInput={(event) => setForm({ ...form, name: (event.target as HTMLInputElement).value })}
      />
      <label for="connection-owner">Owner</label>
      <OwnerSelect
        id="connection-owner"
        value={form.owner}
        principals={principals}
        onChange={(owner) => setForm({ ...form, owner })}
      />
      <SecretsField
        id="connection-secrets"
        label="Secrets (JSON, optional)"
        value={form.secrets}
        names={secretNames}
        onChange={(secrets) => setForm({ ...form, secrets })}
      />
      <ErrorLine error={error} />
      <ErrorIssues error={error} testId="connection-issues" />
      <div class="row">
        <button type="submit" disabled={busy || form.name.trim() === ''}>
          Add the connection
        </button>
      </div>
    </form>
  );
}
