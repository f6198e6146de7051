import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewService, NewTool, ToolRow, ToolSearchQuery } from '@cyrnel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubTools, searchService } from '../../test/support/github-catalog';
import { openSqliteStore, type SqliteStore } from './open-sqlite-store';

// GitHub's REST description (a dev-only fixture), its ~1,200 operations under 9 service ids: a
// catalog of ~11,000 real tools. Schemas are left out: search never reads them.
const COPIES = 9;
const ADAPTERS = ['openapi'];

/** GitHub's tools as service `id`, with `overrides`. */
const service = (id: string, overrides: Partial<NewService> = {}): NewService =>
  searchService(id, githubTools, overrides);

let dir: string;
let store: SqliteStore;
const search = (text: string, more: Partial<ToolSearchQuery> = {}) =>
  store.catalog.searchTools({ text, adapters: ADAPTERS, limit: 20, ...more });
const names = (rows: readonly ToolRow[]) => rows.map((row) => `${row.serviceId}.${row.id}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cyrnel-search-'));
  store = await openSqliteStore({ dataDir: dir });
  for (let i = 0; i < COPIES; i++) await store.catalog.insertService(service(`github${i}`));
  // What must never be found: a disabled service, a disabled tool, an inactive adapter's service.
  await store.catalog.setServiceEnabled('github8', false, 'now');
  await store.catalog.setToolEnabled('github0', 'issues_create', false, 'now');
  await store.catalog.insertService(service('elsewhere', { adapter: 'other' }));
}, 120_000);

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('searchTools over a catalog of ~11,000 GitHub tools', () => {
  it('answers an exact id first, in every service, then related tools', async () => {
    const found = names(await search('issues_create'));
    expect(found.slice(0, 7)).toEqual([1, 2, 3, 4, 5, 6, 7].map((i) => `github${i}.issues_create`));
    expect(found.slice(7).every((name) => !name.endsWith('.issues_create'))).toBe(true);
    expect(names(await search('ISSUES_CREATE', { limit: 1 }))).toEqual(['github1.issues_create']);
  });

  it('answers a qualified id first', async () => {
    const found = names(await search('github3.issues_create'));
    expect(found[0]).toBe('github3.issues_create');
    expect(found.every((name) => name.startsWith('github3.'))).toBe(true);
    expect(names(await search('github0.issues_create'))[0]).not.toBe('github0.issues_create');
  });

  it('finds issues_create first for the words of what it does', async () => {
    for (const query of ['create issue', 'Create an issue', 'create issues', 'issue create']) {
      expect(names(await search(query, { limit: 3 })), query).toEqual([
        'github1.issues_create',
        'github2.issues_create',
        'github3.issues_create',
      ]);
    }
  });

  it('ranks tools whose id holds every word first, shortest id first', async () => {
    const found = (await search('list issues', { serviceId: 'github1' })).map((row) => row.id);
    expect(found[0]).toBe('issues_list');
    expect(found.slice(0, 8).every((id) => id.includes('list') && id.includes('issue'))).toBe(true);
    expect((await search('delete repository webhook', { serviceId: 'github1', limit: 1 }))[0]?.id).toBe(
      'repos_delete_webhook',
    );
    expect((await search('merge pull request', { serviceId: 'github1', limit: 1 }))[0]?.id).toBe(
      'pulls_merge',
    );
  });

  it('splits camelCase in queries and matches the last word as a prefix', async () => {
    expect((await search('issuesCreate', { serviceId: 'github1', limit: 1 }))[0]?.id).toBe('issues_create');
    expect((await search('upload release ass', { serviceId: 'github1', limit: 1 }))[0]?.id).toBe(
      'repos_upload_release_asset',
    );
  });

  it('widens to any word when every word finds too few', async () => {
    const found = await search('frobnicate gist', { serviceId: 'github1' });
    expect(found.length).toBe(20);
    expect(found.every((row) => /gist/i.test(`${row.id} ${row.name} ${row.description}`))).toBe(true);
  });

  it('never answers a disabled tool, a disabled service or an inactive adapter', async () => {
    for (const query of [
      '',
      'issues_create',
      'github8.issues_create',
      'create issue',
      'issue',
      'get',
      'elsewhere',
    ]) {
      const found = await search(query, { limit: 100 });
      expect(found.every((row) => row.enabled && row.serviceEnabled && row.adapter === 'openapi')).toBe(true);
      expect(
        names(found).filter(
          (name) => name === 'github0.issues_create' || /^(github8|elsewhere)\./.test(name),
        ),
      ).toEqual([]);
    }
    expect(await search('issues_create', { serviceId: 'github8' })).toEqual([]);
    expect(await search('issues_create', { adapters: [] })).toEqual([]);
  });

  it('leaves out the services the host failed to hydrate', async () => {
    for (const query of ['', 'issues_create', 'create issue', 'repository']) {
      const found = await search(query, { limit: 100, excludedServices: ['github3', 'github5'] });
      expect(found.length, query).toBeGreaterThan(0);
      expect(
        found.some((row) => row.serviceId === 'github3' || row.serviceId === 'github5'),
        query,
      ).toBe(false);
    }
    expect(await search('issues_create', { serviceId: 'github3', excludedServices: ['github3'] })).toEqual(
      [],
    );
  });

  it('keeps to one service when asked', async () => {
    const found = await search('repository', { serviceId: 'github4', limit: 100 });
    expect(found).toHaveLength(100);
    expect(found.every((row) => row.serviceId === 'github4')).toBe(true);
    expect(await search('repository', { serviceId: 'nowhere' })).toEqual([]);
  });

  it('lists callable tools in (service, id) order for a blank query', async () => {
    expect(names(await search('  ', { limit: 2 }))).toEqual([
      'github0.actions_add_custom_labels_to_self_hosted_runner_for_org',
      'github0.actions_add_custom_labels_to_self_hosted_runner_for_repo',
    ]);
  });

  it('answers nothing when nothing matches', async () => {
    for (const query of ['frobnicate', 'zzyzx quux', 'frobnicate_zzyzx', 'github1.frobnicate', '"*:-()']) {
      expect(await search(query), query).toEqual([]);
    }
  });

  it('treats query syntax as words, never as FTS5 syntax', async () => {
    const hostile = [
      '"',
      '""',
      '*',
      'issue*',
      'NEAR(',
      'NEAR(create issue, 2)',
      'create OR',
      'OR',
      'AND NOT',
      '-issue',
      'title:issue',
      '{id}: create',
      '^create',
      'create + issue',
      "issue'); drop table tools; --",
      '\u0000issue',
      'a\u0e31b',
      `${'word '.repeat(500)}issue`,
      'x'.repeat(100_000),
    ];
    for (const query of hostile) {
      const found = await search(query);
      expect(found.length, query).toBeLessThanOrEqual(20);
    }
    expect(names(await search('NEAR(create, issue) OR'))).toEqual(
      names(await search('near create issue or')),
    );
    expect(names(await search('"create" -issue*', { limit: 1 }))).toEqual(['github1.issues_create']);
    expect(
      (await search('OR', { limit: 5 })).every((row) => /\bor/i.test(`${row.name} ${row.description}`)),
    ).toBe(true);
  });

  it('answers the same order every time, ties in (service, id) order', async () => {
    const first = names(await search('gist comment', { limit: 50 }));
    expect(names(await search('gist comment', { limit: 50 }))).toEqual(first);
    const copies = first.filter((name) => name.endsWith('.gists_create_comment'));
    expect(copies).toEqual([...copies].sort());
  });

  it('answers at most limit tools', async () => {
    expect(await search('get', { limit: 7 })).toHaveLength(7);
    expect(await search('create issue', { limit: 0 })).toEqual([]);
  });
});

describe('the search index follows the tool rows', () => {
  it('indexes, replaces and removes tools with their service', async () => {
    const one = (id: string, name: string): NewTool => ({
      id,
      name,
      description: 'a probe',
      enabled: true,
      inputSchema: {},
      outputSchema: {},
      adapterDomain: {},
      keywords: ['post', 'zebra-crossing'],
    });
    await store.catalog.insertService(service('probe', { tools: [one('paintStripes', 'Paint stripes')] }));
    expect(names(await search('paint stripes'))).toEqual(['probe.paintStripes']);
    expect(names(await search('zebra crossing'))).toEqual(['probe.paintStripes']);
    await store.catalog.replaceServiceDefinition(
      'probe',
      { ...service('probe'), name: 'Probe', tools: [one('washStripes', 'Wash stripes')] },
      true,
      'now',
    );
    expect(names(await search('paint'))).toEqual([]);
    expect(names(await search('wash stripes'))).toEqual(['probe.washStripes']);
    await store.catalog.setToolEnabled('probe', 'washStripes', false, 'now');
    expect(await search('wash stripes')).toEqual([]);
    await store.catalog.setToolEnabled('probe', 'washStripes', true, 'now');
    await expect(
      store.catalog.insertService(service('probe', { tools: [one('dryStripes', 'Dry')] })),
    ).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(names(await search('stripes'))).toEqual(['probe.washStripes']);
    expect(await store.catalog.deleteService('probe')).toBe(true);
    expect(await search('stripes')).toEqual([]);
  });
});
