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
}
