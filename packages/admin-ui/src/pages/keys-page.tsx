import type { CyrnelClient } from '@cyrnel/client';
import type { CreatedKey, KeyRecord, PrincipalRecord } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { collect } from '../components/collect';
import { ErrorLine } from '../components/error-line';
import { KeyForm } from '../components/key-form';
import { KeyTable } from '../components/key-table';
import { NewKey } from '../components/new-key';
import { PrincipalsSection } from '../components/principals-section';
import { useAction } from '../components/use-action';

/**
 * `#/keys`: the principals and the API keys (admin keys only: another key sees the server's 403
 * message), creating and deleting them. A created key is shown once, held in this page's state
 * only, so navigating away forgets it.
 */
export function KeysPage({ client, open }: { client: CyrnelClient; open: boolean }) {
  const [keys, setKeys] = useState<KeyRecord[] | undefined>();
  const [principals, setPrincipals] = useState<PrincipalRecord[]>([]);
  const [created, setCreated] = useState<CreatedKey | undefined>();
  const { error, busy, run } = useAction();
  const reload = async () => {
    const [nextPrincipals, nextKeys] = await Promise.all([
      collect(client.principals.iterate()),
      collect(client.keys.iterate()),
    ]);
    setPrincipals(nextPrincipals);
    setKeys(nextKeys);
  };
  useEffect(() => void run(reload), []);
  if (!keys) {
    return (
      <>
        <h1>API keys</h1>
        <ErrorLine error={error} />
      </>
    );
  }
  const onCreated = async (key: CreatedKey) => {
    setCreated(key);
    await reload();
  };
  const remove = (key: KeyRecord) =>
    void run(async () => {
      await client.keys.delete(key.id);
      if (created?.id === key.id) setCreated(undefined);
      await reload();
    });
  return (
    <>
      <h1>API keys</h1>
      {created ? <NewKey created={created} onDone={() => setCreated(undefined)} /> : null}
      <ErrorLine error={error} />
      <h2>Keys</h2>
      <p class="muted">Revoking a key is at once and for good: it is refused from its next request.</p>
      {keys.length === 0 ? (
        <p class="empty">No stored key: the server's own key (if any) is set where it starts.</p>
      ) : (
        <KeyTable keys={keys} principals={principals} busy={busy} onDelete={remove} />
      )}
      <h2>Create a key</h2>
      {open ? (
        <p class="notice" data-testid="open-server-note">
          This server has no key yet: every request is an admin's. Once a key is stored, every request needs
          one: create an <strong>admin</strong> key for yourself first, copy it, then sign in with it.
        </p>
      ) : null}
      <KeyForm client={client} principals={principals} onCreated={onCreated} />
      <PrincipalsSection client={client} principals={principals} onChanged={() => run(reload)} />
    </>
  );
}
