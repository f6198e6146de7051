import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryProcessStorage } from '../processes/memory-process-storage';
import { silentLogger } from '../scoped-logger';
import { newProcess } from '../testing/new-process';
import { foldCallJournals, openJournalDir, readCallJournal } from './call-journal';

const dirs: string[] = [];
const journalDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-call-journal-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const line = (q: number, p: number, t: string, at: number) =>
  `${JSON.stringify({ q, p, s: 'shop', t, at, id: q * 2 })}\n`;

describe('the call journal', () => {
  it('adds to a run the journaled calls its stored record lacks, as interrupted, then removes the files', async () => {
    const storage = createMemoryProcessStorage();
    const id = await storage.insert(newProcess({ state: 'queued' }));
    const first = Date.UTC(2026, 10, 29, 4, 0, 0);
    // The first call was stored by the main thread before the crash; the next two were not.
    await storage.openCalls(id, [
      {
        index: 0,
        call: {
          serviceId: 'shop',
          toolId: 'get',
          startedAt: new Date(first).toISOString(),
          durationMs: 3,
          ok: true,
          errorCode: null,
          errorReason: null,
          decision: null,
          resultBytes: 10,
        },
      },
    ]);
    const dir = journalDir();
    writeFileSync(
      join(dir, 'w0-1.jsonl'),
      // Line 1 is the stored call; 2 was not stored; 3 names an unknown process; the last is cut.
      `${line(1, id, 'get', first)}${line(2, id, 'get', first + 1)}${line(3, 999, 'get', first)}{"q":4,"p":`,
    );
    // A later segment of the same worker's journal.
    writeFileSync(join(dir, 'w0-1.jsonl.1'), line(4, id, 'put', first + 2));
    // The host thread's own journal (its calls of the gate's path).
    writeFileSync(join(dir, 'h-2.jsonl'), line(1, id, 'post', first + 3));
    writeFileSync(join(dir, 'unrelated.txt'), 'kept');

    expect(readCallJournal(join(dir, 'w0-1.jsonl')).map((entry) => entry.q)).toEqual([1, 2, 3]);
    expect(await foldCallJournals(dir, storage, silentLogger)).toBe(3);
    const calls = await storage.calls(id);
    expect(calls.map((call) => [call.toolId, call.ok])).toEqual([
      ['get', true],
      ['get', null],
      ['put', null],
      ['post', null],
    ]);
    expect(calls[1]?.startedAt).toBe(new Date(first + 1).toISOString());
    // An unknown process (deleted since) is skipped; the journals are gone, other files stay.
    expect(readdirSync(dir)).toEqual(['unrelated.txt']);
    // Folding again adds nothing.
    expect(await foldCallJournals(dir, storage, silentLogger)).toBe(0);
    expect(await foldCallJournals(join(dir, 'missing'), storage, silentLogger)).toBe(0);
    // Opened private whatever the umask, an existing directory tightened.
    const opened = openJournalDir(join(dir, 'journal'));
    expect(statSync(opened).mode & 0o777).toBe(0o700);
    chmodSync(opened, 0o755);
    expect(statSync(openJournalDir(opened)).mode & 0o777).toBe(0o700);
  });
});
