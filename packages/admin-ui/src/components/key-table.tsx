import type { KeyPolicy, KeyRecord, KeyScope, PrincipalRecord } from '@cyrnel/sdk/api';
import { ConfirmButton } from './confirm-button';

/** What a key may call at all, in a line (`services: notes · tools: weather.getForecast`). */
export function scopeSummary(scope: KeyScope | null): string {
  if (!scope) return 'every tool';
  const parts = [
    scope.services?.length ? `services: ${scope.services.join(', ')}` : '',
    scope.tools?.length ? `tools: ${scope.tools.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : 'no tool';
}

/** How a key's calls differ from the policies, in a line (`default ask · notes: allow`). */
export function policySummary(policy: KeyPolicy | null): string {
  if (!policy) return 'follows the policies';
  const entries = [
    ...(policy.default ? [`default ${policy.default}`] : []),
    ...Object.entries(policy.services ?? {}).map(([id, rule]) => `${id}: ${rule}`),
    ...Object.entries(policy.tools ?? {}).map(([id, rule]) => `${id}: ${rule}`),
  ];
  return entries.length > 0 ? entries.join(' · ') : 'follows the policies';
}

/**
 * API keys as rows: name, role, principal, prefix, when created and last used, scope and policy
 * in a line each, and revoking one (asked once; `DELETE /keys/:id`: it answers 401 from then on).
 * Never the keys themselves: the server has only their hashes.
 */
export function KeyTable({
  keys,
  principals,
  busy,
  onDelete,
}: {
  keys: readonly KeyRecord[];
  principals: readonly PrincipalRecord[];
  busy: boolean;
  onDelete: (key: KeyRecord) => void;
}) {
  const principalName = new Map(principals.map((principal) => [principal.id, principal.name]));
  return (
    <div class="table-scroll">
      <table aria-label="API keys">
        <thead>
          <tr>
            <th>Name</th>
            <th>Role</th>
            <th>Principal</th>
            <th>Prefix</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Scope</th>
            <th>Policy</th>
            <th>
              <span class="visually-hidden">Revoke</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id} data-testid="key-row" data-id={key.id}>
              <td>{key.name}</td>
              <td>{key.role}</td>
              <td>{principalName.get(key.principalId) ?? key.principalId}</td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{key.createdAt}</td>
              <td data-testid="key-last-used">{key.lastUsedAt ?? 'never'}</td>
              <td data-testid="key-scope">{scopeSummary(key.scope)}</td>
              <td data-testid="key-policy">{policySummary(key.policy)}</td>
              <td>
                <ConfirmButton
                  verb="Revoke"
                  subject={`key ${key.name}`}
                  busy={busy}
                  onConfirm={() => onDelete(key)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
