import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { runMigrations } from '../../run-migrations';
import { createKysely } from '../create-kysely';
import { openSqliteStore } from '../open-sqlite-store';
import { migrations } from './index';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0007'));

describe('migration 0007-service-origin', () => {
  it('records the adapter version the modules table holds as the one that generated stored services', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-0007-'));
    dirs.push(dir);
    const filename = join(dir, 'data.db');
    const db = createKysely({ filename });
    await runMigrations(db, before);
    await sql`insert into modules (id, type, name, description, version, is_builtin, enabled, missing, created_at, updated_at)
      values ('openapi', 'adapter', 'OpenAPI', '', '0.3.1', 1, 1, 0, 'now', 'now')`.execute(db);
    for (const [id, adapter] of [
      ['pets', 'openapi'],
      ['orphan', 'gone'],
    ]) {
      await sql`insert into services (id, name, description, adapter, enabled, hash, source, definition,
          config_schema, secrets_schema, adapter_domain, created_at, updated_at)
        values (${id}, ${id}, '', ${adapter}, 0, 'h', null, '{}', '{}', '{}', '{}', 'now', 'now')`.execute(
        db,
      );
    }
    await db.destroy();

    const store = await openSqliteStore({ filename });
    try {
      const rows = await store.catalog.listServices({});
      expect(rows.map((row) => [row.id, row.adapterVersion, row.registry])).toEqual([
        ['orphan', null, null],
        ['pets', '0.3.1', null],
      ]);
      expect(await store.catalog.getServiceDefinitionText('pets')).toBe('{}');
      expect(await store.catalog.getServiceDefinitionText('nope')).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
