import { describe, expect, it } from 'vitest';
import { createMemoryCatalogStorage } from '../catalog/memory-catalog-storage';
import { watchCatalog } from '../several-hosts/catalog-revision';
import { newService, newTool } from '../testing/catalog-fixtures';
import { createPolicyBook } from './policy-book';
import type { DefaultPolicy } from './policy-input';

const ALLOW_ALL: DefaultPolicy = { default: 'allow', byAnnotation: {} };

/** A book over a real memory catalog with service `svc`, counting the policy reads. */
async function bookWithReads() {
  const storage = createMemoryCatalogStorage();
  await storage.insertService(newService('svc', { tools: [newTool('list'), newTool('delete')] }));
  const watched = watchCatalog(storage);
  const reads: string[] = [];
  const read = watched.catalog.getServicePolicy.bind(watched.catalog);
  watched.catalog.getServicePolicy = (serviceId) => {
    reads.push(serviceId);
    return read(serviceId);
  };
  const book = createPolicyBook({ catalog: watched.catalog, revision: watched.revision, server: ALLOW_ALL });
  return { book, reads, catalog: watched.catalog };
}

describe('createPolicyBook', () => {
  it('reads a service once per revision and again after a write', async () => {
    const { book, reads, catalog } = await bookWithReads();
    expect((await book.rules('svc', 'list'))?.effective.policy).toBe('allow');
    expect((await book.rules('svc', 'delete'))?.own).toBeNull();
    expect(book.peek('svc', 'list')).not.toBeUndefined();
    expect(reads).toEqual(['svc']);
    await catalog.setServicePolicy('svc', { tools: { delete: 'block' } }, new Date().toISOString());
    expect(book.peek('svc', 'delete')).toBeUndefined();
    expect((await book.rules('svc', 'delete'))?.effective.policy).toBe('block');
    expect(reads).toEqual(['svc', 'svc']);
  });

  it('bounds what it keeps of the service ids a program names', async () => {
    const { book, reads } = await bookWithReads();
    const long = 'x'.repeat(100_000);
    for (let n = 0; n < 3; n++) {
      expect(await book.rules('nope', 'list')).toBeNull();
      expect(await book.rules(long, 'list')).toBeNull();
    }
    // An unknown id of a plausible length is kept for the revision; one past 256 characters never.
    expect(reads).toEqual(['nope', long, long, long]);
    expect(book.peek('nope', 'list')).toBeNull();
    expect(book.peek(long, 'list')).toBeUndefined();
    await expect(book.get('nope')).rejects.toMatchObject({ reason: 'service_not_found' });
    // Past 10,000 services the book starts again.
    for (let n = 0; n < 10_000; n++) await book.rules(`s${n}`, 'list');
    expect(book.peek('nope', 'list')).toBeUndefined();
    expect(book.peek('s9999', 'list')).toBeNull();
  });
});
