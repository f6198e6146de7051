import { expect, it } from 'vitest';
import type { CatalogStorage, ToolSearchQuery } from '../index';
import { newService, newTool } from './catalog-fixtures';

const LATER = '2026-01-02T00:00:00.000Z';

/**
 * The checks of `CatalogStorage.searchTools` every store shares, whatever its ranking (SQLite's
 * FTS5 and bm25, PostgreSQL's `ts_rank`, core's memory index): which tools may be answered, the
 * exact id first, words found in every field, the last word as a prefix, the index following every
 * write, hostile text as plain words, the limit. Registered by `runCatalogStorageContract`
 * inside its suite; `catalog` answers the storage of the running test.
 */
export function toolSearchContract(catalog: () => CatalogStorage): void {
  const search = (text: string, extra: Partial<ToolSearchQuery> = {}) =>
    catalog()
      .searchTools({ text, adapters: ['openapi'], limit: 10, ...extra })
      .then((rows) => rows.map((row) => `${row.serviceId}.${row.id}`));

  it('searches effectively enabled tools only, exact ids first', async () => {
    await catalog().insertService(newService('github', { enabled: true }));
    await catalog().insertService(newService('gitlab', { enabled: true, adapter: 'other' }));
    await catalog().insertService(newService('off', { enabled: false }));
    await catalog().setToolEnabled('github', 'issues_list', false, LATER);
    expect(await search('issues_create')).toEqual(['github.issues_create']);
    expect(await search('issues')).toEqual(['github.issues_create']);
    expect(await search('repository')).toEqual(['github.repos_get']);
    expect(await search('')).toEqual(['github.issues_create', 'github.repos_get']);
    expect(await search('issues', { excludedServices: ['github'] })).toEqual([]);
    expect(await search('nothing matches this')).toEqual([]);
    expect(await search('issues_create', { adapters: [] })).toEqual([]);
  });

  it('answers an exact id case-insensitively and in service order, a qualified one in its service only', async () => {
    await catalog().insertService(newService('beta', { enabled: true }));
    await catalog().insertService(newService('alpha', { enabled: true }));
    expect(await search('ISSUES_CREATE', { limit: 2 })).toEqual([
      'alpha.issues_create',
      'beta.issues_create',
    ]);
    const qualified = await search('beta.issues_create');
    expect(qualified[0]).toBe('beta.issues_create');
    expect(qualified.every((name) => name.startsWith('beta.'))).toBe(true);
    expect(await search('beta.issues_create', { serviceId: 'alpha' })).toEqual([]);
    expect(await search('issues_create', { serviceId: 'alpha', limit: 1 })).toEqual(['alpha.issues_create']);
    expect(await search('issues_create', { serviceId: 'nowhere' })).toEqual([]);
    expect(await search('repos_get', { serviceId: 'beta', excludedServices: ['beta'] })).toEqual([]);
  });

  it('finds tools by the words of their id, name, keywords and service, camelCase split', async () => {
    await catalog().insertService(
      newService('petstore', {
        enabled: true,
        name: 'Animal shelter',
        tools: [
          newTool('listPets', { name: 'List pets', description: 'every pet' }),
          newTool('orders_place', { name: 'Place an order', keywords: ['purchase'] }),
        ],
      }),
    );
    expect((await search('listPets'))[0]).toBe('petstore.listPets');
    expect((await search('list pets'))[0]).toBe('petstore.listPets');
    expect((await search('ordersPlace'))[0]).toBe('petstore.orders_place');
    expect(await search('purchase')).toEqual(['petstore.orders_place']);
    expect((await search('shelter')).sort()).toEqual(['petstore.listPets', 'petstore.orders_place']);
  });

  it('ranks a tool whose id holds every word above one that only describes them', async () => {
    await catalog().insertService(
      newService('svc', {
        enabled: true,
        tools: [
          newTool('comments_add', { name: 'Add a comment', description: 'create an issue comment' }),
          newTool('issues_create', { name: 'Open an issue', description: 'opens a new one' }),
        ],
      }),
    );
    expect(await search('create issue')).toEqual(['svc.issues_create', 'svc.comments_add']);
  });

  it('matches the last word as a prefix when it has at least three letters', async () => {
    await catalog().insertService(newService('svc', { enabled: true }));
    expect((await search('issues cre'))[0]).toBe('svc.issues_create');
    expect((await search('reposit'))[0]).toBe('svc.repos_get');
  });

  it('follows every write: replaced, disabled, re-enabled and deleted tools', async () => {
    await catalog().insertService(newService('svc', { enabled: true }));
    await catalog().replaceServiceDefinition(
      'svc',
      { ...newService('svc'), tools: [newTool('stripes_paint', { keywords: ['zebra'] })] },
      true,
      LATER,
    );
    expect(await search('issues_create')).toEqual([]);
    expect(await search('zebra')).toEqual(['svc.stripes_paint']);
    await catalog().setToolEnabled('svc', 'stripes_paint', false, LATER);
    expect(await search('zebra')).toEqual([]);
    await catalog().setToolEnabled('svc', 'stripes_paint', true, LATER);
    await catalog().setServiceEnabled('svc', false, LATER);
    expect(await search('zebra')).toEqual([]);
    await catalog().setServiceEnabled('svc', true, LATER);
    expect(await search('zebra')).toEqual(['svc.stripes_paint']);
    await catalog().deleteService('svc');
    expect(await search('zebra')).toEqual([]);
    expect(await search('')).toEqual([]);
  });

  it('reads query syntax as plain words, and answers at most limit tools', async () => {
    await catalog().insertService(newService('a', { enabled: true }));
    await catalog().insertService(newService('b', { enabled: true }));
    for (const text of [
      '"',
      '*',
      'issue*',
      'NEAR(create issue, 2)',
      'OR',
      '-issue',
      "x'); drop table tools; --",
    ]) {
      expect((await search(text)).length, text).toBeLessThanOrEqual(10);
    }
    expect(await search('"*:-()')).toEqual([]);
    expect(await search('x'.repeat(100_000))).toEqual([]);
    expect(await search('issues', { limit: 1 })).toHaveLength(1);
    expect(await search('issues', { limit: 0 })).toEqual([]);
    expect(await search('  ', { limit: 3 })).toEqual(['a.issues_create', 'a.issues_list', 'a.repos_get']);
    expect(await search('', { serviceId: 'b', limit: 1 })).toEqual(['b.issues_create']);
  });
}
