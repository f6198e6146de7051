import { randomBytes } from 'node:crypto';
import type { ToolRow, ToolSearchQuery } from '@cyrnel/core';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../src/create-store';
import type { Database } from '../src/database';
import { openPostgresStore, postgresDialect } from '../src/postgres/index';
import { migrations } from '../src/postgres/migrations/index';
import { indexServiceTools } from '../src/postgres/tool-search-index';
import { runMigrations } from '../src/run-migrations';
import * as policies from '../src/sqlite/migrations/0016-policies';
import { githubTools, searchService, searchTool } from './support/github-catalog';
import { POSTGRES_TESTS, useFileDatabase } from './support/postgres';

// GitHub's REST description (a dev-only fixture), its ~1,200 operations under 9 service ids
// (~11,000 tools: words in more than 1,000 and more than 5,000 of them), and 1,200 twins whose
// two words always come together, so their count (1,200) is far above its estimate.
const COPIES = 9;
const ADAPTERS = ['openapi'];

const database = useFileDatabase();

const twins = Array.from({ length: 1_200 }, (_, i) => searchTool(`twin_${i}`, `Alpha beta ${i}`, 'a twin'));

/** A schema of its own in the test database, and a Kysely instance on it. */
function schemaDb(schema: string): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: database.url(),
    options: `-c search_path=${schema}`,
    max: 2,
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

const names = (rows: readonly ToolRow[]) => rows.map((row) => `${row.serviceId}.${row.id}`);

interface Match {
  name: string;
  service_id: string;
  id: string;
  rank: number;
  block: number;
  line: number;
  search_id: number;
}

const byName = (a: Match, b: Match) =>
  a.service_id < b.service_id ? -1 : a.service_id > b.service_id ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * What the search answers for words, worked out the plain way: every callable match of the words
 * as prefixes (the tsquery search built before `tool_words`), ranked by `ts_rank`, or, past 1,000,
 * the first 250 (in table order; in one service, in search-id order) by id length. All of them,
 * best first.
 */
async function expected(db: Kysely<Database>, words: string[], serviceId?: string): Promise<string[]> {
  const query = words.map((word) => `${word}:*`).join(' & ');
  const inService = serviceId === undefined ? sql`` : sql` and t.service_id = ${serviceId}`;
  const { rows } = await sql<Match>`select t.service_id || '.' || t.id as name, t.service_id, t.id,
      ts_rank(t.search_document, q) as rank, (t.ctid::text::point)[0] as block,
      (t.ctid::text::point)[1] as line, t.search_id
    from tools t join services s on s.id = t.service_id, to_tsquery('simple', ${query}) q
    where t.enabled = 1 and s.enabled = 1 and s.adapter = 'openapi'${inService}
      and t.search_document @@ q`.execute(db);
  if (rows.length <= 1_000)
    return rows.sort((a, b) => b.rank - a.rank || byName(a, b)).map((row) => row.name);
  const first =
    serviceId === undefined
      ? rows.sort((a, b) => a.block - b.block || a.line - b.line)
      : rows.sort((a, b) => a.search_id - b.search_id);
  return first
    .slice(0, 250)
    .sort((a, b) => a.id.length - b.id.length || byName(a, b))
    .map((row) => row.name);
}

describe.skipIf(!POSTGRES_TESTS.enabled)('PostgreSQL tool search over ~12,000 tools', () => {
  const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
  let store: Store;
  let db: Kysely<Database>;
  const search = (text: string, more: Partial<ToolSearchQuery> = {}) =>
    store.catalog.searchTools({ text, adapters: ADAPTERS, limit: 20, ...more });

  beforeAll(async () => {
    store = await openPostgresStore({ url: database.url(), schema, maxConnections: 4 });
    db = schemaDb(schema);
    for (let i = 0; i < COPIES; i++)
      await store.catalog.insertService(searchService(`github${i}`, githubTools));
    await store.catalog.insertService(searchService('twins', twins));
    // What must never be found: a disabled service, a disabled tool, an inactive adapter's service.
    await store.catalog.setServiceEnabled('github8', false, 'now');
    await store.catalog.setToolEnabled('github0', 'issues_create', false, 'now');
    await store.catalog.insertService(
      searchService('elsewhere', githubTools.slice(0, 50), { adapter: 'other' }),
    );
    await sql`analyze tools, services`.execute(db);
  }, 180_000);

  afterAll(async () => {
    await db?.destroy();
    await store?.close();
    await database.dropSchema(schema);
  });

  it('answers as ranking every match, or ordering the first 250 by id length, would', async () => {
    const cases: [text: string, words: string[], serviceId?: string][] = [
      // a few matches: ranked
      ['list pull request reviews', ['list', 'pull', 'request', 'reviews']],
      ['delete repository webhook', ['delete', 'repository', 'webhook']],
      ['secret scanning alerts', ['secret', 'scanning', 'alerts']],
      ['codespace machin', ['codespace', 'machin']],
      ['upload release ass', ['upload', 'release', 'ass']],
      ['get the authenticated user', ['get', 'authenticated', 'user']],
      // over 1,000 matches estimated: GIN's first 250
      ['repository', ['repository']],
      ['list', ['list']],
      // over 5,000: the table read in order
      ['get', ['get']],
      ['api', ['api']],
      // estimated at 120, counted at 1,200
      ['alpha beta', ['alpha', 'beta']],
      // a camelCase word by its parts, as on SQLite
      ['listCommits', ['list', 'commits']],
      ['getAuthenticatedUser', ['get', 'authenticated', 'user']],
      // one service: its matches counted, the first in search-id order
      ['api', ['api'], 'github2'],
      ['merge pull', ['merge', 'pull'], 'github3'],
    ];
    for (const [text, words, serviceId] of cases) {
      const more = serviceId === undefined ? {} : { serviceId };
      expect(names(await search(text, more)), `${text} ${serviceId ?? ''}`).toEqual(
        (await expected(db, words, serviceId)).slice(0, 20),
      );
    }
  });

  it('answers exact ids first, then the words of the id', async () => {
    const found = names(await search('issues_create'));
    expect(found.slice(0, 7)).toEqual([1, 2, 3, 4, 5, 6, 7].map((i) => `github${i}.issues_create`));
    expect(found.slice(7)).toEqual(
      (await expected(db, ['issues', 'create']))
        .filter((name) => !name.endsWith('.issues_create'))
        .slice(0, 13),
    );
    expect(names(await search('ISSUES_CREATE', { limit: 1 }))).toEqual(['github1.issues_create']);
    const qualified = names(await search('github3.pulls_merge'));
    expect(qualified[0]).toBe('github3.pulls_merge');
    expect(qualified.slice(1)).toEqual(
      (await expected(db, ['pulls', 'merge'], 'github3'))
        .filter((name) => name !== 'github3.pulls_merge')
        .slice(0, 19),
    );
    expect(await search('github3.pulls_merge', { serviceId: 'github4' })).toEqual([]);
  });

  it('never answers a disabled tool, a disabled service, an inactive adapter or an excluded service', async () => {
    for (const query of [
      'issues_create',
      'create issue',
      'issue',
      'get',
      'repository',
      'github8.issues_get',
    ]) {
      const found = await search(query, { limit: 300, excludedServices: ['github5'] });
      expect(found.every((row) => row.enabled && row.serviceEnabled && row.adapter === 'openapi')).toBe(true);
      expect(
        names(found).filter(
          (name) => name === 'github0.issues_create' || /^(github8|github5|elsewhere)\./.test(name),
        ),
        query,
      ).toEqual([]);
    }
    expect(await search('repository', { adapters: [] })).toEqual([]);
  });

  it('answers nothing when a word starts no indexed word, whatever the query holds', async () => {
    for (const query of [
      'frobnicate',
      'xylophone quokka',
      'zzyzx_quux',
      'github1.frobnicate',
      '"*:-()',
      "'",
      '\\',
    ]) {
      expect(await search(query), query).toEqual([]);
    }
    expect(await expected(db, ['near', 'merge', 'pull'])).toEqual([]);
    expect(await search('NEAR("merge" OR -pull:*')).toEqual([]);
  });

  it('answers the same order every time', async () => {
    for (const query of ['repository', 'get', 'create issue']) {
      expect(names(await search(query)), query).toEqual(names(await search(query)));
    }
  });

  it('counts the tools holding each word as services come, change and go', async () => {
    const counts = async () => {
      const kept = await sql<{ word: string; tools: number }>`select word, tools from tool_words
        where tools > 0 order by word`.execute(db);
      const held = await sql<{ word: string; tools: number }>`select w.word, count(*)::integer as tools
        from tools, unnest(tsvector_to_array(tools.search_document)) as w(word) group by w.word order by w.word`.execute(
        db,
      );
      expect(kept.rows).toEqual(held.rows);
    };
    await store.catalog.insertService(
      searchService('probe', [searchTool('paintStripes', 'Paint stripes', 'zebra crossing')]),
    );
    expect(names(await search('zebra'))).toEqual(['probe.paintStripes']);
    await counts();
    await store.catalog.replaceServiceDefinition(
      'probe',
      { ...searchService('probe', [searchTool('washStripes', 'Wash stripes', 'a probe')]), name: 'Probe' },
      true,
      'now',
    );
    expect(await search('zebra')).toEqual([]);
    expect(names(await search('wash stri'))).toEqual(['probe.washStripes']);
    await counts();
    expect(await store.catalog.deleteService('probe')).toBe(true);
    expect(await search('stripes')).toEqual([]);
    await counts();
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('migration 0012-tool-search-function', () => {
  it('counts the words of the tools a database already holds', async () => {
    const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
    try {
      const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0012'));
      const db = schemaDb(schema);
      await sql`create schema ${sql.id(schema)}`.execute(db);
      await runMigrations(db, before, schema);
      // The store as it was: documents written after the rows, no words.
      const old = await createStore({
        db,
        dialect: {
          ...postgresDialect,
          migrations: before,
          toolSearch: {
            add: indexServiceTools,
            remove: async () => {},
            search: postgresDialect.toolSearch.search,
          },
        },
        migrate: false,
      });
      // Today's insert writes the columns of 0016 too: the old schema has them for the insert only.
      await policies.up(db);
      await old.catalog.insertService(searchService('github', githubTools));
      await policies.down(db);
      await old.close();

      const store = await openPostgresStore({ url: database.url(), schema, maxConnections: 2 });
      try {
        const found = await store.catalog.searchTools({ text: 'create issue', adapters: ADAPTERS, limit: 1 });
        expect(names(found)).toEqual(['github.issues_create']);
        const reader = schemaDb(schema);
        const { rows } = await sql<{ words: number; tools: number }>`select count(*)::integer as words,
          max(tools) as tools from tool_words`.execute(reader);
        await reader.destroy();
        expect(rows[0]?.words).toBeGreaterThan(1_000);
        expect(rows[0]?.tools).toBe(githubTools.length);
      } finally {
        await store.close();
      }
    } finally {
      await database.dropSchema(schema);
    }
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('catalog writes of several hosts at once', () => {
  it('replaces and deletes one service from two hosts at once without a deadlock, counting words right', async () => {
    const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
    const a = await openPostgresStore({ url: database.url(), schema, maxConnections: 4 });
    const b = await openPostgresStore({ url: database.url(), schema, maxConnections: 4 });
    try {
      const tools = githubTools.slice(0, 200);
      for (let round = 0; round < 12; round++) {
        await a.catalog.insertService(searchService('shared', tools));
        // One host updates the service while another deletes it (each host's own lock is per host).
        const [replaced, deleted] = await Promise.allSettled([
          a.catalog.replaceServiceDefinition(
            'shared',
            searchService('shared', tools.slice(0, 150)),
            true,
            'now',
          ),
          b.catalog.deleteService('shared'),
        ]);
        // Either order is fine: the replace first (then the delete removes what it wrote), or
        // the delete first (then the replace answers that the service is gone).
        if (replaced.status === 'rejected')
          expect(replaced.reason).toMatchObject({ reason: 'service_not_found', status: 404 });
        expect(deleted).toEqual({ status: 'fulfilled', value: true });
      }
      const db = schemaDb(schema);
      const { rows } = await sql<{ words: number }>`select count(*)::integer as words from tool_words
        where tools <> 0`.execute(db);
      await db.destroy();
      expect(rows[0]?.words).toBe(0);
    } finally {
      await a.close();
      await b.close();
      await database.dropSchema(schema);
    }
  }, 60_000);
});
