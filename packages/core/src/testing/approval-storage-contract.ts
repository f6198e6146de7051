import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRow, ApprovalStorage } from '../index';
import type { StorageUnderTest } from './process-storage-contract';

/** Options of {@link runApprovalStorageContract}. */
export interface ApprovalStorageContractOptions {
  /** Shown in the suite's name, e.g. `sqlite`. */
  readonly name: string;
  /** A fresh, empty storage for each test. */
  create(): Promise<StorageUnderTest<ApprovalStorage>>;
}

/** An approval row with `fields` over the defaults (a pending call). */
export function newApproval(id: string, fields: Partial<ApprovalRow> = {}): ApprovalRow {
  return {
    id,
    kind: 'call',
    state: 'pending',
    processId: 7,
    keyId: 'k1',
    serviceId: 'git',
    toolId: 'issues_create',
    reason: 'service-default',
    parameters: { title: 'é', nested: { list: [1, 2] } },
    code: 'await cyrnel.services.git.tools.issues_create.invoke({})',
    line: 1,
    plan: null,
    hostId: 'h1',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T00:10:00.000Z',
    decidedAt: null,
    decidedBy: null,
    note: null,
    remember: null,
    ...fields,
  };
}

/**
 * The contract of core's `ApprovalStorage` port as a Vitest suite: rows read back as written,
 * newest-first pages with filters, one decision only (a conditional write), pruning.
 *
 * @example
 * ```ts
 * import { createMemoryApprovalStorage } from '@cyrnel/core';
 * import { runApprovalStorageContract } from '@cyrnel/core/testing';
 *
 * runApprovalStorageContract({
 *   name: 'memory',
 *   create: async () => ({ storage: createMemoryApprovalStorage(), close: async () => {} }),
 * });
 * ```
 */
export function runApprovalStorageContract(options: ApprovalStorageContractOptions): void {
  describe(`ApprovalStorage contract: ${options.name}`, () => {
    let subject: StorageUnderTest<ApprovalStorage>;
    beforeEach(async () => {
      subject = await options.create();
    });
    afterEach(async () => {
      await subject.close();
    });

    it('reads back a call and a plan as they were written', async () => {
      const storage = subject.storage;
      const call = newApproval('a1');
      const plan = newApproval('p1', {
        kind: 'plan',
        processId: null,
        serviceId: null,
        toolId: null,
        parameters: null,
        line: null,
        hostId: null,
        plan: {
          codeHash: 'f'.repeat(64),
          tools: [
            {
              serviceId: 'git',
              toolId: 'issues_list',
              effectivePolicy: 'allow',
              labels: ['untrusted'],
              lines: [1, 3],
              known: true,
            },
          ],
          unknown: [{ line: 4, text: 'cyrnel.services[name]' }],
        },
      });
      await storage.insertApproval(call);
      await storage.insertApproval(plan);
      expect(await storage.getApproval('a1')).toEqual(call);
      expect(await storage.getApproval('p1')).toEqual(plan);
      expect(await storage.getApproval('nope')).toBeUndefined();
    });

    it('lists newest first with filters and a cursor', async () => {
      const storage = subject.storage;
      await storage.insertApproval(newApproval('a', { createdAt: '2026-01-01T00:00:01.000Z' }));
      await storage.insertApproval(newApproval('b', { createdAt: '2026-01-01T00:00:02.000Z', processId: 8 }));
      await storage.insertApproval(
        newApproval('c', { createdAt: '2026-01-01T00:00:02.000Z', state: 'denied' }),
      );
      const ids = (rows: ApprovalRow[]) => rows.map((row) => row.id);
      expect(ids(await storage.listApprovals({ limit: 10 }))).toEqual(['c', 'b', 'a']);
      expect(ids(await storage.listApprovals({ state: 'pending', limit: 10 }))).toEqual(['b', 'a']);
      expect(ids(await storage.listApprovals({ processId: 8, limit: 10 }))).toEqual(['b']);
      expect(
        ids(
          await storage.listApprovals({
            before: { createdAt: '2026-01-01T00:00:02.000Z', id: 'c' },
            limit: 1,
          }),
        ),
      ).toEqual(['b']);
    });

    it('writes one decision only: a second one, or one on an unknown id, is refused', async () => {
      const storage = subject.storage;
      await storage.insertApproval(newApproval('a1'));
      const at = '2026-01-01T00:01:00.000Z';
      const decisions = await Promise.all([
        storage.decideApproval('a1', {
          state: 'approved',
          at,
          decidedBy: 'k2',
          note: 'fine',
          remember: 'process',
        }),
        storage.decideApproval('a1', { state: 'denied', at, decidedBy: 'k3' }),
      ]);
      expect(decisions.filter(Boolean)).toHaveLength(1);
      const row = await storage.getApproval('a1');
      expect(row?.state === 'approved' ? row : undefined).toMatchObject(
        decisions[0] ? { decidedBy: 'k2', note: 'fine', remember: 'process', decidedAt: at } : {},
      );
      expect(await storage.decideApproval('nope', { state: 'approved', at })).toBe(false);
      expect(await storage.decideApproval('a1', { state: 'expired', at })).toBe(false);
    });

    it('moves an approved plan to used once, keeping the time it was decided', async () => {
      const storage = subject.storage;
      await storage.insertApproval(newApproval('p1', { kind: 'plan', processId: null }));
      const at = '2026-01-01T00:01:00.000Z';
      expect(await storage.decideApproval('p1', { state: 'used', processId: 3 }, ['approved'])).toBe(false);
      expect(await storage.decideApproval('p1', { state: 'approved', at, decidedBy: null })).toBe(true);
      expect(await storage.decideApproval('p1', { state: 'used', processId: 3 }, ['approved'])).toBe(true);
      expect(await storage.decideApproval('p1', { state: 'used', processId: 4 }, ['approved'])).toBe(false);
      expect(await storage.getApproval('p1')).toMatchObject({ state: 'used', processId: 3, decidedAt: at });
    });

    it('prunes decided rows older than a time and keeps pending ones', async () => {
      const storage = subject.storage;
      await storage.insertApproval(newApproval('old', { state: 'denied' }));
      await storage.insertApproval(newApproval('waiting'));
      await storage.insertApproval(
        newApproval('new', { state: 'approved', createdAt: '2026-02-01T00:00:00.000Z' }),
      );
      expect(await storage.pruneApprovals('2026-01-15T00:00:00.000Z')).toBe(1);
      expect((await storage.listApprovals({ limit: 10 })).map((row) => row.id).sort()).toEqual([
        'new',
        'waiting',
      ]);
    });
  });
}
