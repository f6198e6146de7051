import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from './create-store';
import { openPostgresStore } from './postgres/open-postgres-store';
import { openSqliteStore } from './sqlite/open-sqlite-store';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from './testing/index';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const at = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const sealed = (keyId: string) => ({ keyId, iv: 'iv', tag: 'tag', ciphertext: 'ct' });

const newService = (id: string, secrets: ReturnType<typeof sealed> | null) => ({
  id,
  adapter: 'same',
  enabled: false,
  name: id,
  description: '',
  hash: 'h',
  source: null,
  definition: '{}',
  configSchema: {},
  secretsSchema: {},
  adapterDomain: {},
  tools: [],
  config: { from: 'install' },
  secrets,
  createdAt: at,
});

/** The settings cases on one database; `open` gives a fresh store. */
function settingsCases(open: () => Promise<Store>): void {
  it('keeps the config and secrets of a module and a service of the same id apart, and drops a service’s with it', async () => {
    const store = await open();
    const { catalog } = store;
    const module = { kind: 'module', id: 'same' } as const;
    const service = { kind: 'service', id: 'same' } as const;
    await catalog.insertModule({
      id: 'same',
      type: 'adapter',
      name: 'same',
      description: '',
      version: '1.0.0',
      isBuiltin: false,
      enabled: false,
      missing: false,
      createdAt: at,
      updatedAt: at,
    });
    await catalog.insertService(newService('same', null));
    expect(await catalog.getConfig(module)).toBeUndefined();
    expect(await catalog.getConfig(service)).toEqual({ from: 'install' });
    await catalog.setConfig(module, { a: 1 }, at);
    await catalog.setConfig(module, { a: 2 }, at);
    await catalog.setSecrets(module, sealed('m'), at);
    await catalog.setSecrets(service, sealed('s'), at);
    expect(await catalog.getConfig(module)).toEqual({ a: 2 });
    expect(await catalog.getConfig(service)).toEqual({ from: 'install' });
    expect(await catalog.getSecrets(module)).toEqual(sealed('m'));
    expect(await catalog.getSecrets(service)).toEqual(sealed('s'));
    expect(await catalog.deleteService('same')).toBe(true);
    expect(await catalog.getConfig(service)).toBeUndefined();
    expect(await catalog.getSecrets(service)).toBeUndefined();
    expect(await catalog.getSecrets(module)).toEqual(sealed('m'));
    await store.close();
  });

  it('writes a service’s secrets as its shared default connection, keeping its status and creation time', async () => {
    const store = await open();
    const { catalog } = store;
    const service = { kind: 'service', id: 'svc' } as const;
    await catalog.insertService(newService('svc', null));
    await catalog.setSecrets(service, sealed('first'), at);
    const created = {
      serviceId: 'svc',
      name: 'default',
      owner: null,
      status: 'connected',
      statusMessage: null,
      secrets: sealed('first'),
      oauth: null,
      createdAt: at,
      updatedAt: at,
    };
    expect(await catalog.listConnections('svc')).toEqual([created]);
    // Its status is the connection's own: a write of the secrets leaves it, and its creation time.
    await catalog.updateConnection('svc', 'default', {
      status: 'reauthorization_required',
      statusMessage: 'refused',
      updatedAt: at,
    });
    await catalog.setSecrets(service, sealed('second'), later);
    expect(await catalog.getConnection('svc', 'default')).toEqual({
      ...created,
      status: 'reauthorization_required',
      statusMessage: 'refused',
      secrets: sealed('second'),
      updatedAt: later,
    });
    // A default connection without secrets is a service without secrets.
    await catalog.updateConnection('svc', 'default', { secrets: null, updatedAt: later });
    expect(await catalog.getSecrets(service)).toBeUndefined();
    await store.close();
  });
}

describe('settings rows on SQLite', () => {
  settingsCases(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-settings-'));
    dirs.push(dir);
    return openSqliteStore({ dataDir: dir });
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('settings rows on PostgreSQL', () => {
  let database: FreshDatabase | undefined;
  beforeAll(async () => {
    database = await freshPostgresDatabase('cyrnel_s');
  });
  afterAll(() => database?.drop());

  // Each store in a schema of its own, dropped with the database.
  settingsCases(() =>
    openPostgresStore({
      url: database?.url ?? '',
      schema: `cyrnel_t_${randomBytes(6).toString('hex')}`,
      maxConnections: 2,
    }),
  );
});
