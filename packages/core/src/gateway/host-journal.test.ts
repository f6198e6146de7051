import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCallJournal } from './call-journal';
import { createHostJournal } from './host-journal';

const dirs: string[] = [];
const journalDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-host-journal-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A promise settled from outside, as a start's write is. */
function deferred() {
  let resolve: () => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("the host thread's call journal", () => {
  it('opens its file with the first start, and removes a closed segment once it and every start before it are stored', async () => {
    const dir = journalDir();
    const journal = createHostJournal(dir, 'h-1.jsonl');
    expect(readdirSync(dir)).toEqual([]);
    // Enough starts to fill the first segment (256 KiB) and open a second.
    const stores = Array.from({ length: 5000 }, () => deferred());
    stores.forEach((store, index) => {
      const journaled = journal.journal(7, 'memory', 'read_graph', 1_000 + index);
      expect(journaled).toBeTypeOf('function');
      journaled?.(store.promise);
    });
    expect(readdirSync(dir).sort()).toEqual(['h-1.jsonl', 'h-1.jsonl.1']);
    const lines = readCallJournal(join(dir, 'h-1.jsonl'));
    expect(lines[0]).toEqual({ q: 1, p: 7, s: 'memory', t: 'read_graph', at: 1_000, id: 0 });
    // Stored in any order but the first: the closed segment waits for its first line.
    for (const store of stores.slice(1)) store.resolve();
    await turn();
    expect(readdirSync(dir).sort()).toEqual(['h-1.jsonl', 'h-1.jsonl.1']);
    // A start whose write failed is settled too: its run's end writes the row.
    stores[0]?.reject(new Error('disk I/O error'));
    await turn();
    expect(readdirSync(dir)).toEqual(['h-1.jsonl.1']);
    // Closed with the gateway: a start then waits for the store.
    journal.close();
    expect(journal.journal(7, 'memory', 'read_graph', 5_000)).toBeUndefined();
  });

  it('answers no journaling when its file cannot be opened, and goes on without one', () => {
    // Its directory was removed under the running host.
    const dir = join(journalDir(), 'removed');
    const journal = createHostJournal(dir, 'h-1.jsonl');
    expect(journal.journal(7, 'memory', 'read_graph', 1_000)).toBeUndefined();
    mkdirSync(dir);
    expect(journal.journal(7, 'memory', 'read_graph', 1_001)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });
});
