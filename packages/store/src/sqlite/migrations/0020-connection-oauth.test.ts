import type { SealedSecrets } from '@cyrnel/core';
import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { describeMigration } from './migration-case';

const SEALED: SealedSecrets = { keyId: 'k1', iv: 'iv+/=', tag: 'tag+/=', ciphertext: 'ct+/=é' };
const OAUTH: SealedSecrets = { keyId: 'k1', iv: 'o-iv', tag: 'o-tag', ciphertext: 'o-ct' };
const AT = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-02T00:00:00.000Z';

/** A service with its default connection and a named one, as a 0019 database holds them. */
async function fill(db: Kysely<Database>): Promise<void> {
  await sql`insert into services (id, name, description, adapter, enabled, hash, source, definition,
      config_schema, secrets_schema, adapter_domain, created_at, updated_at)
    values ('svc', 'svc', '', 'openapi', 1, 'h', null, '{}', '{}', '{}', '{}', 'then', 'then')`.execute(db);
  for (const name of ['default', 'work'])
    await sql`insert into service_connections
        (service_id, name, owner_id, status, status_message, key_id, iv, tag, ciphertext, created_at, updated_at)
      values ('svc', ${name}, null, 'connected', null, ${SEALED.keyId}, ${SEALED.iv}, ${SEALED.tag},
        ${SEALED.ciphertext}, ${AT}, ${AT})`.execute(db);
}

/** After 0020 the rows are unchanged and without OAuth state; the new columns hold it, the pending hash and the lease. */
async function expectOAuth(store: Store): Promise<void> {
  const { catalog } = store;
  const rows = await catalog.listConnections('svc');
  expect(rows.map((row) => [row.name, row.secrets, row.oauth])).toEqual([
    ['default', SEALED, null],
    ['work', SEALED, null],
  ]);
  expect(
    await catalog.updateConnection('svc', 'work', { oauth: OAUTH, pendingState: 'hash-1', updatedAt: LATER }),
  ).toBe(true);
  expect(await catalog.findPendingAuthorization('hash-1')).toMatchObject({ name: 'work', oauth: OAUTH });
  expect(await catalog.claimPendingAuthorization('svc', 'work', 'hash-1')).toBe(true);
  expect(await catalog.claimPendingAuthorization('svc', 'work', 'hash-1')).toBe(false);
  expect(await catalog.leaseConnection('svc', 'work', 'a', LATER, AT)).toBe(true);
  expect(await catalog.leaseConnection('svc', 'work', 'b', LATER, AT)).toBe(false);
  // Two connections waiting on states: the index is unique, nulls many.
  expect(await catalog.updateConnection('svc', 'default', { pendingState: 'hash-2', updatedAt: LATER })).toBe(
    true,
  );
}

describeMigration({
  name: '0020-connection-oauth',
  previous: '0019-principal-subjects',
  title:
    "gives connections a sealed OAuth state, a pending state's hash and a refresh lease, and is undone by its down",
  fill,
  check: expectOAuth,
  async afterDown(db, tables) {
    expect(tables).toContain('service_connections');
    const { rows } = await sql<{ name: string; ciphertext: string }>`
      select name, ciphertext from service_connections order by name`.execute(db);
    expect(rows).toEqual([
      { name: 'default', ciphertext: SEALED.ciphertext },
      { name: 'work', ciphertext: SEALED.ciphertext },
    ]);
  },
  async reopened(store) {
    expect((await store.catalog.getConnection('svc', 'work'))?.oauth).toBeNull();
  },
});
