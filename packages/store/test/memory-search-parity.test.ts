import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CatalogStorage, createMemoryCatalogStorage, type ToolRow } from '@cyrnel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../src/sqlite/index';
import { githubTools, searchService } from './support/github-catalog';

// Core's in-memory catalog takes the steps of the SQLite search (exact id, title step, tiers by
// bm25, Porter-stemmed words). Both answer the same over ~11,000 tools of GitHub's description,
// as long as SQLite ranks every match: past 1,000 matches of a tier (or 250 of the title step) it
// orders only the first ones its index holds, by id length, where the memory ranks them all.

/** Queries whose matches stay within SQLite's caps across the catalog. */
const NARROW = [
  'issues_create',
  'ISSUES_CREATE',
  'github3.issues_create',
  'github1.pulls_merge',
  'create issue',
  'Create an issue',
  'list issues',
  'merge pull request',
  'issuesCreate',
  'frobnicate gist',
  'gist comment',
  'list pull request reviews',
  'secret scanning alerts',
  'codespace machin',
  'get the authenticated user',
  'listCommits',
  'getAuthenticatedUser',
  'OR',
  'webhook',
  'runner labels',
  'org secrets',
  'team members',
  'star',
  'fork repo',
  'release asset',
  'deploy key',
  'check runs',
  'copilot seats',
  'dependabot',
  'actions cache usage',
  'user emails',
  '"*:-()',
];

/** Queries broader than the caps across the catalog, within them in one service. */
const BROAD = [
  'delete repository webhook',
  'upload release ass',
  'get',
  'NEAR(create, issue) OR',
  'code scanning sarif',
];

let dir: string;
let store: SqliteStore;
const memory = createMemoryCatalogStorage();

async function fill(catalog: CatalogStorage): Promise<void> {
  for (let i = 0; i < 9; i++) await catalog.insertService(searchService(`github${i}`, githubTools));
  await catalog.setServiceEnabled('github8', false, 'now');
  await catalog.setToolEnabled('github0', 'issues_create', false, 'now');
  await catalog.insertService(searchService('elsewhere', githubTools, { adapter: 'other' }));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cyrnel-parity-'));
  store = await openSqliteStore({ dataDir: dir });
  await fill(store.catalog);
  await fill(memory);
}, 120_000);

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = (rows: readonly ToolRow[]) => rows.map((row) => `${row.serviceId}.${row.id}`);

async function answers(text: string, serviceId?: string): Promise<[sqlite: string[], memory: string[]]> {
  const query = { text, adapters: ['openapi'], limit: 20, ...(serviceId === undefined ? {} : { serviceId }) };
  return [names(await store.catalog.searchTools(query)), names(await memory.searchTools(query))];
}

describe("core's in-memory catalog searches as the SQLite store does", () => {
  it('answers the same tools in the same order while SQLite ranks every match', async () => {
    const nothing: string[] = [];
    // github8 is disabled: neither answers its tools.
    for (const text of NARROW) {
      for (const serviceId of [undefined, 'github1', 'github8']) {
        const [sqlite, inMemory] = await answers(text, serviceId);
        expect(inMemory, `${text} in ${serviceId ?? 'every service'}`).toEqual(sqlite);
        if (sqlite.length === 0) nothing.push(`${text} in ${serviceId ?? 'every service'}`);
      }
    }
    expect(nothing.filter((entry) => !entry.endsWith(' in github8'))).toEqual([
      'github3.issues_create in github1',
      '"*:-() in every service',
      '"*:-() in github1',
    ]);
  });

  it('answers the same for broad queries within one service', async () => {
    for (const text of BROAD) {
      const [sqlite, inMemory] = await answers(text, 'github4');
      expect(sqlite.length, text).toBeGreaterThan(0);
      expect(inMemory, text).toEqual(sqlite);
    }
  });
});
