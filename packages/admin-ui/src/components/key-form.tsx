import type { CyrnelClient } from '@cyrnel/client';
import {
  type CreatedKey,
  type CreateKeyRequest,
  KEY_ROLES,
  type KeyPolicy,
  type KeyRole,
  type KeyScope,
  type PrincipalRecord,
} from '@cyrnel/sdk/api';
import { useState } from 'preact/hooks';
import { ErrorIssues } from './error-issues';
import { ErrorLine } from './error-line';
import { parseJsonObject } from './json-object';
import { useAction } from './use-action';

const SCOPE_EXAMPLE = '{ "services": ["notes"], "tools": ["weather.getForecast"] }';
const POLICY_EXAMPLE =
  '{ "default": "ask", "services": { "notes": "allow" }, "tools": { "notes.createNote": "block" } }';

const EMPTY = { name: '', role: 'agent' as KeyRole, principal: '', scope: '', policy: '' };

/** The request the form describes, or why it is none (a scope or policy that is not a JSON object). */
function requestOf(form: typeof EMPTY): CreateKeyRequest | Error {
  const request: CreateKeyRequest = { name: form.name, role: form.role };
  if (form.principal) request.principal = form.principal;
  if (form.scope.trim()) {
    const scope = parseJsonObject(form.scope, 'The scope', { example: SCOPE_EXAMPLE });
    if (scope instanceof Error) return scope;
    request.scope = scope as KeyScope;
  }
  if (form.policy.trim()) {
    const policy = parseJsonObject(form.policy, 'The policy', { example: POLICY_EXAMPLE });
    if (policy instanceof Error) return policy;
    request.policy = policy as KeyPolicy;
  }
  return request;
}

/**
 * Creating an API key: name, role, the principal it belongs to (none: the server makes one of the
 * key's own), and optionally its scope and policy as JSON, checked as JSON here and judged by the
 * server, whose messages and details are shown. `onCreated` gets the key, shown that once.
 */
export function KeyForm({
  client,
  principals,
  onCreated,
}: {
  client: CyrnelClient;
  principals: readonly PrincipalRecord[];
  onCreated: (created: CreatedKey) => Promise<void>;
}) {
  const [form, setForm] = useState(EMPTY);
  const { error, busy, run, setError } = useAction();
  const field = (name: keyof typeof EMPTY) => (event: Event) =>
    setForm({ ...form, [name]: (event.target as HTMLInputElement).value });
  const create = (event: Event) => {
    event.preventDefault();
    const request = requestOf(form);
    if (request instanceof Error) return setError(request);
    void run(async () => {
      const created = await client.keys.create(request);
      setForm(EMPTY);
      await onCreated(created);
    });
  };
  return (
    <form aria-label="New key" onSubmit={create}>
      <label for="key-name">Name</label>
      <input id="key-name" type="text" maxLength={100} value={form.name} onInput={field('name')} />
      <label for="key-role">Role</label>
      <select id="key-role" value={form.role} onChange={field('role')}>
        {KEY_ROLES.map((role) => (
          <option key={role} value={role}>
            {role}
          </option>
        ))}
      </select>
      <label for="key-principal">Principal</label>
      <select id="key-principal" value={form.principal} onChange={field('principal')}>
        <option value="">none: a principal of its own</option>
        {principals.map((principal) => (
          <option key={principal.id} value={principal.id}>
            {principal.name} ({principal.kind})
          </option>
        ))}
      </select>
      <label for="key-scope">Scope (JSON, optional)</label>
      <p class="muted">
        What the key may call at all; empty: every tool. For example: <code>{SCOPE_EXAMPLE}</code>
      </p>
      <textarea
        id="key-scope"
        class="code small"
        spellcheck={false}
        value={form.scope}
        onInput={field('scope')}
      />
      <label for="key-policy">Policy (JSON, optional)</label>
      <p class="muted">
        How its calls differ from the policies; empty: they follow them. For example:{' '}
        <code>{POLICY_EXAMPLE}</code>
      </p>
      <textarea
        id="key-policy"
        class="code small"
        spellcheck={false}
        value={form.policy}
        onInput={field('policy')}
      />
      <ErrorLine error={error} />
      <ErrorIssues error={error} testId="key-issues" />
      <div class="row">
        <button type="submit" disabled={busy || form.name.trim() === ''}>
          Create the key
        </button>
      </div>
    </form>
  );
}
