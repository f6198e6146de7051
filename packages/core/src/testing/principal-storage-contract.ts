import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeyRow, KeyStorage, PrincipalRow } from '../index';
import type { StorageUnderTest } from './process-storage-contract';

/** Options of {@link runPrincipalStorageContract}. */
export interface PrincipalStorageContractOptions {
  /** Shown in the suite's name, e.g. `sqlite`. */
  readonly name: string;
  /** A fresh, empty storage for each test. */
  create(): Promise<StorageUnderTest<KeyStorage>>;
}

/** A principal row with `fields` over the defaults (a person). */
export function newPrincipal(id: string, fields: Partial<PrincipalRow> = {}): PrincipalRow {
  return { id, name: `principal ${id}`, kind: 'person', createdAt: '2026-01-01T00:00:00.000Z', ...fields };
}

/** A key row of principal `principalId` (its hash derived from its id, so unique). */
export function newKey(id: string, principalId: string, fields: Partial<KeyRow> = {}): KeyRow {
  return {
    id,
    name: `key ${id}`,
    principalId,
    role: 'agent',
    hash: Buffer.from(id).toString('hex').padEnd(64, '0'),
    prefix: 'cyk_abcdef',
    createdAt: '2026-01-01T00:00:00.000Z',
    lastUsedAt: null,
    scope: null,
    policy: null,
    ...fields,
  };
}

/**
 * The contract of the principals half of core's `KeyStorage` port (`PrincipalStorage`) as a Vitest
 * suite: principals read back with their key counts, keys written with a new principal in one
 * write, a key naming no principal refused, oldest-first pages, deletion only without keys.
 *
 * @example
 * ```ts
 * import { createMemoryKeyStorage } from '@cyrnel/core';
 * import { runPrincipalStorageContract } from '@cyrnel/core/testing';
 *
 * runPrincipalStorageContract({
 *   name: 'memory',
 *   create: async () => ({ storage: createMemoryKeyStorage(), close: async () => {} }),
 * });
 * ```
 */
export function runPrincipalStorageContract(options: PrincipalStorageContractOptions): void {
  describe(`PrincipalStorage contract: ${options.name}`, () => {
    let subject: StorageUnderTest<KeyStorage>;
    beforeEach(async () => {
      subject = await options.create();
    });
    afterEach(async () => {
      await subject.close();
    });

    it('reads principals back as written, with how many keys belong to each', async () => {
      const storage = subject.storage;
      const ada = newPrincipal('p1', { name: 'Ada é', kind: 'person' });
      const ci = newPrincipal('p2', { kind: 'automation' });
      await storage.insertPrincipal(ada);
      await storage.insertPrincipal(ci);
      await storage.insert(newKey('k1', 'p1'));
      await storage.insert(newKey('k2', 'p1', { role: 'admin' }));
      expect(await storage.getPrincipal('p1')).toEqual({ ...ada, keyCount: 2 });
      expect(await storage.getPrincipal('p2')).toEqual({ ...ci, keyCount: 0 });
      expect(await storage.getPrincipal('nope')).toBeUndefined();
      expect(await storage.get('k1')).toMatchObject({ principalId: 'p1' });
      await expect(storage.insertPrincipal(newPrincipal('p1'))).rejects.toThrow();
    });

    it('writes a key with its new principal at once, and neither when the key is refused', async () => {
      const storage = subject.storage;
      await storage.insert(newKey('k1', 'own'), newPrincipal('own', { kind: 'automation' }));
      expect(await storage.getPrincipal('own')).toMatchObject({ kind: 'automation', keyCount: 1 });
      expect((await storage.findByHash(newKey('k1', 'own').hash))?.principalId).toBe('own');
      // A duplicate key id: the principal that came with it is not left behind.
      await expect(storage.insert(newKey('k1', 'other'), newPrincipal('other'))).rejects.toThrow();
      expect(await storage.getPrincipal('other')).toBeUndefined();
      // A key naming no principal at all is refused.
      await expect(storage.insert(newKey('k2', 'nobody'))).rejects.toThrow();
      expect(await storage.count()).toBe(1);
    });

    it('lists oldest first, then by id, after a cursor', async () => {
      const storage = subject.storage;
      await storage.insertPrincipal(newPrincipal('b', { createdAt: '2026-01-01T00:00:02.000Z' }));
      await storage.insertPrincipal(newPrincipal('a', { createdAt: '2026-01-01T00:00:02.000Z' }));
      await storage.insertPrincipal(newPrincipal('c', { createdAt: '2026-01-01T00:00:01.000Z' }));
      await storage.insert(newKey('k1', 'a'));
      const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
      const all = await storage.listPrincipals({ limit: 10 });
      expect(ids(all)).toEqual(['c', 'a', 'b']);
      expect(all.map((row) => row.keyCount)).toEqual([0, 1, 0]);
      expect(
        ids(
          await storage.listPrincipals({
            after: { createdAt: '2026-01-01T00:00:02.000Z', id: 'a' },
            limit: 5,
          }),
        ),
      ).toEqual(['b']);
      expect(ids(await storage.listPrincipals({ limit: 1 }))).toEqual(['c']);
    });

    it('finds a principal by its external subject, which is unique', async () => {
      const storage = subject.storage;
      const subjectOf = 'https://as.example#user-1';
      await storage.insertPrincipal(newPrincipal('p1', { externalSubject: subjectOf }));
      await storage.insertPrincipal(newPrincipal('p2'));
      await storage.insertPrincipal(newPrincipal('p3'));
      expect(await storage.findPrincipalBySubject(subjectOf)).toEqual({
        ...newPrincipal('p1', { externalSubject: subjectOf }),
        keyCount: 0,
      });
      expect(await storage.getPrincipal('p1')).toMatchObject({ externalSubject: subjectOf });
      expect(await storage.findPrincipalBySubject('https://as.example#user-2')).toBeUndefined();
      expect((await storage.getPrincipal('p2'))?.externalSubject).toBeUndefined();
      await expect(
        storage.insertPrincipal(newPrincipal('p4', { externalSubject: subjectOf })),
      ).rejects.toThrow();
      expect(await storage.getPrincipal('p4')).toBeUndefined();
    });

    it('deletes a principal only when no key belongs to it', async () => {
      const storage = subject.storage;
      await storage.insertPrincipal(newPrincipal('p1'));
      await storage.insert(newKey('k1', 'p1'));
      expect(await storage.deletePrincipal('p1')).toBe('has_keys');
      expect(await storage.getPrincipal('p1')).toMatchObject({ keyCount: 1 });
      expect(await storage.delete('k1')).toBe('deleted');
      expect(await storage.getPrincipal('p1')).toMatchObject({ keyCount: 0 });
      expect(await storage.deletePrincipal('p1')).toBe('deleted');
      expect(await storage.deletePrincipal('p1')).toBe('not_found');
      expect(await storage.getPrincipal('p1')).toBeUndefined();
    });
  });
}
