import type { ConnectionRecord, ConnectionStatus, PrincipalRecord } from '@cyrnel/sdk/api';
import type { ComponentChildren } from 'preact';
import type { KnownPrincipals } from './connection-fields';

const STATUS_LABELS: Record<ConnectionStatus, [label: string, pill: string]> = {
  connected: ['connected', 'on'],
  reauthorization_required: ['needs re-authorization', 'ask'],
  error: ['error', 'bad'],
};

/** A connection's status as a badge (`needs re-authorization` for `reauthorization_required`) and why. */
export function ConnectionStatusPill({ record }: { record: ConnectionRecord }) {
  const [label, pill] = STATUS_LABELS[record.status] ?? [String(record.status), 'bad'];
  return (
    <span data-testid="connection-status" data-status={record.status}>
      <span class={`pill ${pill}`}>{label}</span>
      {record.statusMessage ? <span class="status-message"> {record.statusMessage}</span> : null}
    </span>
  );
}

/** Who a connection belongs to, for people: `shared`, the principal's name, else its id. */
export function OwnerName({ owner, principals }: { owner: string | null; principals: KnownPrincipals }) {
  if (owner === null) return <span class="pill off">shared</span>;
  const principal = principals?.find((known: PrincipalRecord) => known.id === owner);
  return principal ? <span>{principal.name}</span> : <code title="principal id">{owner}</code>;
}

/**
 * A service's connections as rows: name, owner, status (and why it is not connected), the
 * secrets set as JSON pointers (never their values: the API has none to give), when it last
 * changed, and what can be done with each (`actions`). `authorize` renders the separate
 * authorization column: it shows only when a connection has something there (an OAuth one).
 */
export function ConnectionTable({
  records,
  principals,
  actions,
  authorize,
}: {
  records: readonly ConnectionRecord[];
  principals: KnownPrincipals;
  actions: (record: ConnectionRecord) => ComponentChildren;
  authorize: (record: ConnectionRecord) => ComponentChildren;
}) {
  const authorizations = records.map((record) => authorize(record));
  const anyAuthorization = authorizations.some((cell) => cell !== null && cell !== undefined);
  return (
    <div class="table-scroll">
      <table aria-label="Connections">
        <thead>
          <tr>
            <th>Name</th>
            <th>Owner</th>
            <th>Status</th>
            <th>Secrets set</th>
            <th>Updated</th>
            {anyAuthorization ? <th>Authorization</th> : null}
            <th>
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {records.map((record, index) => (
            <tr key={record.name} data-testid="connection-row" data-name={record.name}>
              <td class="nowrap">
                <strong>{record.name}</strong>
              </td>
              <td data-testid="connection-owner">
                <OwnerName owner={record.owner} principals={principals} />
              </td>
              <td>
                <ConnectionStatusPill record={record} />
              </td>
              <td data-testid="connection-secrets">
                {record.secrets.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  record.secrets.map((pointer) => (
                    <code key={pointer} class="pointer">
                      {pointer}
                    </code>
                  ))
                )}
              </td>
              <td data-testid="connection-updated">{record.updatedAt}</td>
              {anyAuthorization ? <td data-testid="connection-authorize">{authorizations[index]}</td> : null}
              <td>
                <span class="row">{actions(record)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
