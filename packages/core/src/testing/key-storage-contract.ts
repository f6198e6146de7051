import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeyDeletion, KeyStorage } from '../index';
import { newKey, newPrincipal } from './principal-storage-contract';

/** One fresh database with a storage per host sharing it (see {@link KeyStorageContractOptions}). */
export interface KeyStoragesUnderTest {
  /** As many storages as asked for, each opened as one host opens it; all on the same database. */
  readonly storages: readonly KeyStorage[];
  /** Release them all (close the database, remove its files). */
  close(): Promise<void>;
}

/** Options of {@link runKeyStorageContract}. */
export interface KeyStorageContractOptions {
  /** Shown in the suite's name, e.g. `sqlite`. */
  readonly name: string;
  /**
   * A fresh, empty database for each test with `hosts` storages on it, as that many hosts sharing
   * it would open (a storage that serves one process only may answer the same one `hosts` times).
   */
  create(hosts: number): Promise<KeyStoragesUnderTest>;
}

const KEEP = { keepAnAdmin: true } as const;

/**
 * The contract of the keys half of core's `KeyStorage` port as a Vitest suite: counts by role, and
 * a deletion that keeps an admin key (`keepAnAdmin`), atomic across the hosts sharing the
 * database: of concurrent deletions of the last admin keys, exactly one fewer than there are keys
 * succeeds, whichever host each runs on. The principals half is `runPrincipalStorageContract`.
 *
 * @example
 * ```ts
 * import { createMemoryKeyStorage } from '@cyrnel/core';
 * import { runKeyStorageContract } from '@cyrnel/core/testing';
 *
 * runKeyStorageContract({
 *   name: 'memory',
 *   create: async (hosts) => {
 *     const storage = createMemoryKeyStorage();
 *     return { storages: Array.from({ length: hosts }, () => storage), close: async () => {} };
 *   },
 * });
 * ```
 */
export function runKeyStorageContract(options: KeyStorageContractOptions): void {
  describe(`KeyStorage contract: ${options.name}`, () => {
    let subject: KeyStoragesUnderTest | undefined;
    const open = async (hosts: number) => {
      subject = await options.create(hosts);
      expect(subject.storages).toHaveLength(hosts);
      return subject.storages;
    };
    beforeEach(() => {
      subject = undefined;
    });
    afterEach(async () => {
      await subject?.close();
    });

    it('counts the keys, or those of one role', async () => {
      const [storage] = (await open(1)) as [KeyStorage];
      await storage.insertPrincipal(newPrincipal('p'));
      expect(await storage.count()).toBe(0);
      expect(await storage.count({ role: 'admin' })).toBe(0);
      await storage.insert(newKey('a1', 'p', { role: 'admin' }));
      await storage.insert(newKey('g1', 'p'));
      await storage.insert(newKey('g2', 'p'));
      await storage.insert(newKey('r1', 'p', { role: 'approver' }));
      expect(await storage.count()).toBe(4);
      expect(await storage.count({ role: 'admin' })).toBe(1);
      expect(await storage.count({ role: 'agent' })).toBe(2);
      expect(await storage.count({ role: 'approver' })).toBe(1);
    });

    it('deletes any key but the last admin key when asked to keep an admin', async () => {
      const [storage] = (await open(1)) as [KeyStorage];
      await storage.insertPrincipal(newPrincipal('p'));
      await storage.insert(newKey('a1', 'p', { role: 'admin' }));
      await storage.insert(newKey('g1', 'p'));
      expect(await storage.delete('a1', KEEP)).toBe('last_admin');
      expect(await storage.get('a1')).toMatchObject({ role: 'admin' });
      expect(await storage.delete('g1', KEEP)).toBe('deleted');
      expect(await storage.delete('g1', KEEP)).toBe('not_found');
      expect(await storage.delete('nope', KEEP)).toBe('not_found');
      // With another admin key, either may go, and then not the one left.
      await storage.insert(newKey('a2', 'p', { role: 'admin' }));
      expect(await storage.delete('a1', KEEP)).toBe('deleted');
      expect(await storage.delete('a2', KEEP)).toBe('last_admin');
      expect(await storage.count({ role: 'admin' })).toBe(1);
      // Not asked to keep one: the last goes too.
      expect(await storage.delete('a2')).toBe('deleted');
      expect(await storage.delete('a2')).toBe('not_found');
      expect(await storage.count()).toBe(0);
    });

    it('keeps one admin key when hosts delete the last admin keys at the same time', async () => {
      const hosts = await open(3);
      const [first] = hosts as [KeyStorage];
      await first.insertPrincipal(newPrincipal('p'));
      // Several rounds, so that the deletions overlap in at least some of them.
      for (let round = 0; round < 8; round++) {
        const count = round % 2 === 0 ? 2 : 3;
        const ids = Array.from({ length: count }, (_, i) => `r${round}a${i}`);
        for (const id of ids) await first.insert(newKey(id, 'p', { role: 'admin' }));
        const outcomes: KeyDeletion[] = await Promise.all(
          ids.map((id, i) => (hosts[i % hosts.length] as KeyStorage).delete(id, KEEP)),
        );
        expect(outcomes.toSorted(), `round ${round}`).toEqual([
          ...Array.from({ length: count - 1 }, () => 'deleted'),
          'last_admin',
        ]);
        const left = ids.filter((_, i) => outcomes[i] === 'last_admin');
        expect(await first.count({ role: 'admin' })).toBe(1);
        expect(await first.get(left[0] as string)).toMatchObject({ role: 'admin' });
        // The next round starts without an admin key.
        expect(await first.delete(left[0] as string)).toBe('deleted');
      }
    });
  });
}
