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

const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0004'));

describe('migration 0004-tool-search', () => {
  it('indexes the tools a database already holds, each service in one range of search ids', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-0004-'));
    dirs.push(dir);
    const filename = join(dir, 'data.db');
    const db = createKysely({ filename });
    await runMigrations(db, before);
    for (const [service, tools] of [
      ['weather', ['getForecast', 'listCities']],
      ['github', ['issues_create', 'repos_get', 'listIssues']],
    ] as const) {
      await sql`insert into services (id, name, description, adapter, enabled, hash, source, definition,
        config_schema, secrets_schema, adapter_domain, created_at, updated_at)
        values (${service}, ${`The ${service} API`}, '', 'openapi', 1, 'h', null, '', '{}', '{}', '{}', 'now', 'now')`.execute(
        db,
      );
      for (const id of tools) {
        await sql`insert into tools (service_id, id, name, description, enabled, input_schema, output_schema, adapter_domain)
          values (${service}, ${id}, ${id}, ${`Does ${id}`}, 1, '{}', '{}', '{}')`.execute(db);
      }
    }
    await db.destroy();

    const store = await openSqliteStore({ filename });
    try {
      const search = (text: string) =>
        store.catalog
          .searchTools({ text, adapters: ['openapi'], limit: 10 })
          .then((rows) => rows.map((row) => `${row.serviceId}.${row.id}`));
      expect(await search('create issue')).toEqual(['github.issues_create', 'github.listIssues']);
      expect(await search('list issues')).toEqual([
        'github.listIssues',
        'github.issues_create',
        'weather.listCities',
      ]);
      expect(await search('forecast')).toEqual(['weather.getForecast']);
      expect(await search('weather')).toEqual(['weather.getForecast', 'weather.listCities']);
      const reader = createKysely({ filename });
      const ranges = await sql<{ service_id: string; lo: number; hi: number; n: number }>`
        select service_id, min(search_id) as lo, max(search_id) as hi, count(*) as n from tools
        group by service_id order by service_id`.execute(reader);
      await reader.destroy();
      expect(ranges.rows).toEqual([
        { service_id: 'github', lo: 1, hi: 3, n: 3 },
        { service_id: 'weather', lo: 4, hi: 5, n: 2 },
      ]);
      await store.catalog.setServiceEnabled('weather', false, 'now');
      expect(await search('weather')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
