import { isCyrnelError } from '@cyrnel/sdk';
import { expect, it } from 'vitest';
import type { CatalogStorage, ConnectionRow } from '../index';
import { newService } from './catalog-fixtures';

const AT = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-02T00:00:00.000Z';

const sealed = (tag: string) => ({
  keyId: 'k1',
  iv: `iv-${tag}`,
  tag: `tag-${tag}`,
  ciphertext: `ct-${tag}`,
});

const connection = (name: string, fields: Partial<ConnectionRow> = {}): ConnectionRow => ({
  serviceId: 'svc',
  name,
  owner: null,
  status: 'connected',
  statusMessage: null,
  secrets: sealed(name),
  oauth: null,
  createdAt: AT,
  updatedAt: AT,
  ...fields,
});

/** What connections need of a catalog: named sealed secrets per service, the `default` being the service's own. */
export function catalogConnectionCases(catalog: () => CatalogStorage): void {
  it("keeps a service's secrets as its shared default connection", async () => {
    await catalog().insertService(newService('svc', { secrets: sealed('first') }));
    const [first] = await catalog().listConnections('svc');
    expect(first).toEqual(connection('default', { secrets: sealed('first') }));
    await catalog().setSecrets({ kind: 'service', id: 'svc' }, sealed('second'), LATER);
    expect(await catalog().getConnection('svc', 'default')).toEqual(
      connection('default', { secrets: sealed('second'), updatedAt: LATER }),
    );
    expect(await catalog().getSecrets({ kind: 'service', id: 'svc' })).toEqual(sealed('second'));
  });

  it('stores named connections, changes only the fields named, deletes them and refuses duplicates', async () => {
    await catalog().insertService(newService('svc'));
    expect(await catalog().listConnections('svc')).toEqual([]);
    await catalog().insertConnection(connection('work', { owner: null, createdAt: LATER, updatedAt: LATER }));
    await catalog().insertConnection(connection('alice', { owner: null, secrets: null }));
    expect((await catalog().listConnections('svc')).map((row) => row.name)).toEqual(['alice', 'work']);
    const duplicate = await catalog()
      .insertConnection(connection('work'))
      .catch((error: unknown) => error);
    expect(isCyrnelError(duplicate) && duplicate.reason).toBe('connection_exists');
    expect(
      await catalog().updateConnection('svc', 'alice', {
        status: 'reauthorization_required',
        statusMessage: 'the refresh was refused',
        updatedAt: LATER,
      }),
    ).toBe(true);
    expect(await catalog().getConnection('svc', 'alice')).toEqual(
      connection('alice', {
        secrets: null,
        status: 'reauthorization_required',
        statusMessage: 'the refresh was refused',
        updatedAt: LATER,
      }),
    );
    expect(await catalog().updateConnection('svc', 'nobody', { updatedAt: LATER })).toBe(false);
    expect(await catalog().deleteConnection('svc', 'work')).toBe(true);
    expect(await catalog().deleteConnection('svc', 'work')).toBe(false);
    expect(await catalog().getConnection('svc', 'work')).toBeUndefined();
    // The default connection's absence is the service's secrets' absence.
    expect(await catalog().getSecrets({ kind: 'service', id: 'svc' })).toBeUndefined();
  });

  it("refuses a connection of a missing service and drops a service's connections with it", async () => {
    const missing = await catalog()
      .insertConnection(connection('work', { serviceId: 'ghost' }))
      .catch((error: unknown) => error);
    expect(isCyrnelError(missing) && missing.reason).toBe('service_not_found');
    await catalog().insertService(newService('svc', { secrets: sealed('s') }));
    await catalog().insertConnection(connection('work'));
    expect(await catalog().deleteService('svc')).toBe(true);
    await catalog().insertService(newService('svc'));
    expect(await catalog().listConnections('svc')).toEqual([]);
    expect(await catalog().getSecrets({ kind: 'service', id: 'svc' })).toBeUndefined();
  });

  it("keeps a connection's sealed OAuth state, finds its pending authorization by state hash once, and leases its refresh", async () => {
    await catalog().insertService(newService('svc'));
    await catalog().insertConnection(connection('work', { oauth: sealed('oauth-1') }));
    expect((await catalog().getConnection('svc', 'work'))?.oauth).toEqual(sealed('oauth-1'));
    expect(await catalog().findPendingAuthorization('h1')).toBeUndefined();
    await catalog().updateConnection('svc', 'work', {
      oauth: sealed('oauth-2'),
      pendingState: 'h1',
      updatedAt: LATER,
    });
    expect(await catalog().findPendingAuthorization('h1')).toEqual(
      connection('work', { oauth: sealed('oauth-2'), updatedAt: LATER }),
    );
    // A state is used once: of two claims, one wins.
    const claims = await Promise.all([
      catalog().claimPendingAuthorization('svc', 'work', 'h1'),
      catalog().claimPendingAuthorization('svc', 'work', 'h1'),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await catalog().findPendingAuthorization('h1')).toBeUndefined();
    expect(await catalog().claimPendingAuthorization('svc', 'work', 'other')).toBe(false);
    // One holder at a time until the lease runs out; the holder may take it again.
    const until = '2026-01-01T00:01:00.000Z';
    expect(await catalog().leaseConnection('svc', 'work', 'a', until, AT)).toBe(true);
    expect(await catalog().leaseConnection('svc', 'work', 'b', until, AT)).toBe(false);
    expect(await catalog().leaseConnection('svc', 'work', 'a', until, AT)).toBe(true);
    expect(await catalog().leaseConnection('svc', 'work', 'b', until, LATER)).toBe(true);
    await catalog().releaseConnectionLease('svc', 'work', 'a');
    expect(await catalog().leaseConnection('svc', 'work', 'a', until, AT)).toBe(false);
    await catalog().releaseConnectionLease('svc', 'work', 'b');
    expect(await catalog().leaseConnection('svc', 'work', 'a', until, AT)).toBe(true);
    expect(await catalog().leaseConnection('svc', 'ghost', 'a', until, AT)).toBe(false);
  });
}
