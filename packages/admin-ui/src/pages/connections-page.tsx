import type { CyrnelClient } from '@cyrnel/client';
import type { ConnectionRecord, KeyRole, ServiceDetail } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { collect } from '../components/collect';
import { ConfirmButton } from '../components/confirm-button';
import { ConnectionEditor } from '../components/connection-editor';
import type { KnownPrincipals } from '../components/connection-fields';
import { ConnectionForm } from '../components/connection-form';
import { ConnectionTable } from '../components/connection-table';
import { ErrorLine } from '../components/error-line';
import { OAuthConnect, oauthOf } from '../components/oauth-connect';
import { useAction } from '../components/use-action';
import { usePoll } from '../components/use-poll';

/** What the page knows beyond the connections: the secrets the service names, the principals. */
interface Context {
  /** The secrets the service's schema names (`token`, `headers`), shown as an example. */
  secretNames: string[];
  principals: KnownPrincipals;
}

/**
 * The service's secret names and the principals, for an admin key; for any other key neither (it
 * may read neither the service's detail nor the principals), without asking.
 */
async function loadContext(client: CyrnelClient, serviceId: string, role: KeyRole): Promise<Context> {
  if (role !== 'admin') return { secretNames: [], principals: undefined };
  const service: ServiceDetail = await client.services.get(serviceId);
  const properties = (service.secretsSchema as { properties?: unknown }).properties;
  const secretNames = properties && typeof properties === 'object' ? Object.keys(properties) : [];
  return { secretNames, principals: await collect(client.principals.iterate()) };
}

/**
 * `#/services/<id>/connections`: a service's connections (named sets of its secrets, each a
 * principal's own or shared), asked again every 2 s while shown (a run that finds a token refused,
 * or a person authorizing in another tab, changes a status); adding one, replacing its secrets,
 * giving it to another owner, deleting it. Owners are named by the principals an admin key sees;
 * another key sees its own and the shared connections, owners as ids.
 */
export function ConnectionsPage({
  client,
  serviceId,
  role,
}: {
  client: CyrnelClient;
  serviceId: string;
  role: KeyRole;
}) {
  const [context, setContext] = useState<Context | undefined>();
  const [editing, setEditing] = useState<string | undefined>();
  const { error, busy, run } = useAction();
  const connections = usePoll(() => client.connections.list(serviceId), [serviceId]);
  useEffect(
    () =>
      void run(async () => {
        setContext(undefined);
        setContext(await loadContext(client, serviceId, role));
      }),
    [serviceId],
  );
  const records = connections.value?.items;
  const edited = records?.find((record) => record.name === editing);
  const principals = context?.principals;
  const secretNames = context?.secretNames ?? [];
  const remove = (record: ConnectionRecord) =>
    void run(async () => {
      await client.connections.delete(serviceId, record.name);
      if (editing === record.name) setEditing(undefined);
      connections.refresh();
    });
  return (
    <>
      <h1>Connections of {serviceId}</h1>
      {role === 'admin' ? (
        <p>
          <a href={`#/services/${encodeURIComponent(serviceId)}`}>Back to the service</a>
        </p>
      ) : null}
      <p class="muted">
        Named sets of the service's secrets, stored encrypted and never shown (only which are set). A run uses
        its principal's own connection when there is one, else the shared <code>default</code>, which holds
        the service's own secrets.
      </p>
      <ErrorLine error={error} />
      <ErrorLine error={connections.error} />
      {records === undefined ? null : records.length === 0 ? (
        <p class="empty">No connection this key may see.</p>
      ) : (
        <ConnectionTable
          records={records}
          principals={principals}
          actions={(record) => (
            <>
              <button
                type="button"
                class="secondary"
                aria-label={`Change connection ${record.name}`}
                onClick={() => setEditing(record.name)}
              >
                Change…
              </button>
              <ConfirmButton
                subject={`connection ${record.name}`}
                busy={busy}
                onConfirm={() => remove(record)}
              />
            </>
          )}
          authorize={(record) =>
            oauthOf(record) === undefined ? null : (
              <OAuthConnect client={client} serviceId={serviceId} record={record} />
            )
          }
        />
      )}
      {edited && context ? (
        <ConnectionEditor
          key={edited.name}
          client={client}
          serviceId={serviceId}
          record={edited}
          principals={principals}
          secretNames={secretNames}
          onChanged={connections.refresh}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
      <h2>Add a connection</h2>
      {context ? (
        <ConnectionForm
          client={client}
          serviceId={serviceId}
          principals={principals}
          secretNames={secretNames}
          onCreated={connections.refresh}
        />
      ) : null}
    </>
  );
}
