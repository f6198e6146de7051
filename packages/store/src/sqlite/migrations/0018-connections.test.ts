import type { SealedSecrets } from '@cyrnel/core';
import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { describeMigration } from './migration-case';

// Sealed bytes as the cipher writes them (base64), with characters a careless copy would change.
const SEALED: SealedSecrets = {
  keyId: 'a1b2c3d4',
  iv: 'q83vEjRWeJq8/+7/',
  tag: 'AAECAwQFBgcICQoLDA0ODw==',
  ciphertext: `${'x+/='.repeat(300)}é`,
};
const MODULE_SEALED: SealedSecrets = { keyId: 'a1b2c3d4', iv: 'm-iv', tag: 'm-tag', ciphertext: 'm-ct' };
const WRITTEN = '2026-01-02T03:04:05.000Z';
const LATER = '2026-02-01T00:00:00.000Z';

/** Two services (one with secrets), a module with secrets, a principal and a process: a 0017 database. */
async function fill(db: Kysely<Database>): Promise<void> {
  for (const id of ['svc', 'plain']) {
    await sql`insert into services (id, name, description, adapter, enabled, hash, source, definition,
        config_schema, secrets_schema, adapter_domain, created_at, updated_at)
      values (${id}, ${id}, '', 'openapi', 1, 'h', null, '{}', '{}', '{}', '{}', 'then', 'then')`.execute(db);
    await sql`insert into service_config (owner_id, config, updated_at)
      values (${id}, '{}', 'then')`.execute(db);
  }
  await sql`insert into service_secrets (owner_id, key_id, iv, tag, ciphertext, updated_at)
    values ('svc', ${SEALED.keyId}, ${SEALED.iv}, ${SEALED.tag}, ${SEALED.ciphertext}, ${WRITTEN})`.execute(
    db,
  );
  await sql`insert into modules (id, type, name, description, version, is_builtin, enabled, missing,
      created_at, updated_at)
    values ('mod', 'adapter', 'mod', '', '1.0.0', 0, 1, 0, 'then', 'then')`.execute(db);
  await sql`insert into module_secrets (owner_id, key_id, iv, tag, ciphertext, updated_at)
    values ('mod', ${MODULE_SEALED.keyId}, ${MODULE_SEALED.iv}, ${MODULE_SEALED.tag}, ${MODULE_SEALED.ciphertext},
      ${WRITTEN})`.execute(db);
  await sql`insert into principals (id, name, kind, created_at)
    values ('p1', 'alice', 'person', 'then')`.execute(db);
  await sql`insert into processes (key_id, code, state, created_at, updated_at)
    values (null, 'x', 'idle', 'then', 'then')`.execute(db);
}

/** The service's secrets are its default connection, byte for byte; connections and the new process columns work. */
async function expectConnections(store: Store): Promise<void> {
  const { catalog, processes } = store;
  expect(await catalog.listConnections('svc')).toEqual([
    {
      serviceId: 'svc',
      name: 'default',
      owner: null,
      status: 'connected',
      statusMessage: null,
      secrets: SEALED,
      oauth: null,
      createdAt: WRITTEN,
      updatedAt: WRITTEN,
    },
  ]);
  expect(await catalog.getSecrets({ kind: 'service', id: 'svc' })).toEqual(SEALED);
  expect(await catalog.listConnections('plain')).toEqual([]);
  expect(await catalog.getSecrets({ kind: 'service', id: 'plain' })).toBeUndefined();
  expect(await catalog.getSecrets({ kind: 'module', id: 'mod' })).toEqual(MODULE_SEALED);

  // Writes after the migration: a principal's connection goes with the principal.
  await catalog.setSecrets({ kind: 'service', id: 'plain' }, MODULE_SEALED, LATER);
  const alice = {
    serviceId: 'svc',
    name: 'alice',
    owner: 'p1',
    status: 'connected',
    statusMessage: null,
    secrets: null,
    oauth: null,
    createdAt: LATER,
    updatedAt: LATER,
  } as const;
  await catalog.insertConnection(alice);
  await catalog.insertConnection({ ...alice, name: 'work', owner: null, secrets: MODULE_SEALED });
  expect((await catalog.listConnections('svc')).map((row) => [row.name, row.owner])).toEqual([
    ['default', null],
    ['alice', 'p1'],
    ['work', null],
  ]);
  expect(await store.keys.deletePrincipal('p1')).toBe('deleted');
  expect(await catalog.getConnection('svc', 'alice')).toBeUndefined();

  expect(await processes.get(1)).toMatchObject({ principalId: null, connections: {} });
  const id = await processes.insert({
    ref: null,
    keyId: null,
    principalId: 'p2',
    connections: { svc: 'work' },
    code: 'y',
    state: 'idle',
    timeoutMs: null,
    envConfig: {},
    createdAt: LATER,
  });
  expect(await processes.get(id)).toMatchObject({ principalId: 'p2', connections: { svc: 'work' } });
}

/** `service_secrets` as the rows it holds, read with 0017's columns. */
async function secretRows(db: Kysely<Database>): Promise<unknown[]> {
  const { rows } = await sql`select owner_id, key_id, iv, tag, ciphertext, updated_at
    from service_secrets order by owner_id`.execute(db);
  return rows;
}

describeMigration({
  name: '0018-connections',
  previous: '0017-principals',
  title: "moves every service's secrets into its default connection unchanged, and is undone by its down",
  fill,
  check: expectConnections,
  async afterDown(db, tables) {
    expect(tables).toContain('service_secrets');
    expect(tables).not.toContain('service_connections');
    // The default connections' secrets return as they were sealed; the other connections are lost.
    expect(await secretRows(db)).toEqual([
      {
        owner_id: 'plain',
        key_id: MODULE_SEALED.keyId,
        iv: MODULE_SEALED.iv,
        tag: MODULE_SEALED.tag,
        ciphertext: MODULE_SEALED.ciphertext,
        updated_at: LATER,
      },
      {
        owner_id: 'svc',
        key_id: SEALED.keyId,
        iv: SEALED.iv,
        tag: SEALED.tag,
        ciphertext: SEALED.ciphertext,
        updated_at: WRITTEN,
      },
    ]);
    const { rows } = await sql<Record<string, unknown>>`select * from processes order by id`.execute(db);
    expect(rows).toHaveLength(2);
    expect(Object.keys(rows[0] ?? {})).not.toContain('principal_id');
    expect(Object.keys(rows[0] ?? {})).not.toContain('connections');
  },
  async reopened(store) {
    expect(await store.catalog.getConnection('svc', 'default')).toMatchObject({
      owner: null,
      status: 'connected',
      secrets: SEALED,
      createdAt: WRITTEN,
    });
    expect(await store.catalog.getSecrets({ kind: 'service', id: 'plain' })).toEqual(MODULE_SEALED);
    expect(await store.catalog.getConnection('svc', 'work')).toBeUndefined();
    expect(await store.processes.get(2)).toMatchObject({ principalId: null, connections: {} });
  },
});
