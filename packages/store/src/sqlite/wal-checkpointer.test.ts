import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../test/support/temp-dirs';
import { type CheckpointAnswer, startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer';

const tempDir = useTempDirs('wal');
const open: { db: Database.Database; checkpoints: WalCheckpointer }[] = [];
afterEach(() => {
  for (const { db, checkpoints } of open.splice(0)) {
    checkpoints.close();
    if (db.open) db.close();
  }
});

/** A WAL database with a table of rows of about 2 KiB, and its checkpointer. */
function walDatabase(options: Parameters<typeof startWalCheckpointer>[2] = {}, filename?: string) {
  const file = join(tempDir(), 'data.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('create table t (id integer primary key, v text)');
  const answers: CheckpointAnswer[] = [];
  const checkpoints = startWalCheckpointer(db, filename ?? file, {
    ...options,
    onCheckpoint: (answer) => answers.push(answer),
  });
  open.push({ db, checkpoints });
  const insert = db.prepare('insert into t (v) values (?)');
  const write = () => {
    insert.run('x'.repeat(2_000));
    checkpoints.wrote();
  };
  const walBytes = () => statSync(`${file}-wal`).size;
  return { db, file, checkpoints, answers, write, walBytes };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const until = async (done: () => boolean) => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done()).toBe(true);
};

describe('startWalCheckpointer (a real SQLite file, a real worker thread)', () => {
  it('turns the connection’s own checkpoints off and checkpoints in a thread, the WAL bounded', async () => {
    const { db, checkpoints, answers, write, walBytes } = walDatabase({ writesPerCheckpoint: 50 });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    for (let i = 0; i < 2_000; i++) {
      write();
      // The server's event loop turns between requests: the thread's answers are read.
      await turn();
    }
    const stats = checkpoints.stats();
    expect(stats.threads).toBe(1);
    // A checkpoint asked for while the thread's runs (or starts) is left to the next; after 16 such
    // one runs on the connection. How many ran where depends on the disk's syncs; some in the thread.
    expect(stats.checkpoints - stats.onConnection).toBeGreaterThanOrEqual(2);
    expect(answers.every((answer) => answer.ok)).toBe(true);
    // 2,000 rows of 2 KiB written (4 MB and more with their pages): the WAL was started over.
    expect(walBytes()).toBeLessThan(40 * 1024 * 1024);
    // Every row is in the database file once the connection closes (its last checkpoint).
    const file = db.name;
    checkpoints.close();
    db.close();
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('select count(*) as n from t').get()).toEqual({ n: 2_000 });
    reader.close();
  });

  it('checkpoints on the connection when the event loop never turns to read the thread’s answers', () => {
    const { checkpoints, write, walBytes } = walDatabase({ writesPerCheckpoint: 20 });
    // 4,000 writes in one synchronous stretch: the thread's first answer is never read meanwhile.
    for (let i = 0; i < 4_000; i++) write();
    const stats = checkpoints.stats();
    expect(stats.onConnection).toBeGreaterThan(5);
    // About 16 × 20 rows of 2 KiB at most between two checkpoints that copy everything.
    expect(walBytes()).toBeLessThan(16 * 1024 * 1024);
  });

  it('checkpoints on the connection when the thread cannot, and stops trying after three threads', async () => {
    // The thread opens a file that is not there (`fileMustExist`): each of its checkpoints fails.
    const missing = join(tempDir(), 'gone.db');
    const { checkpoints, answers, write } = walDatabase({ writesPerCheckpoint: 10 }, missing);
    const failures = () => answers.filter((answer) => !answer.ok);
    for (let i = 0; i < 20_000 && failures().length < 3; i++) {
      write();
      // Waiting a little between writes now and then, so a thread has time to start and answer.
      await (i % 10 === 9 ? new Promise((resolve) => setTimeout(resolve, 5)) : turn());
    }
    const before = checkpoints.stats();
    for (let i = 0; i < 200; i++) {
      write();
      await turn();
    }
    const stats = checkpoints.stats();
    expect(stats.threads).toBe(3);
    expect(failures()).toHaveLength(3);
    expect(failures()[0]).toMatchObject({ ok: false, error: expect.stringMatching(/\S/) });
    // Every checkpoint since ran on the connection (no fourth thread), and succeeded.
    expect(stats.onConnection - before.onConnection).toBe(20);
    expect(answers.filter((answer) => answer.ok).length).toBe(stats.onConnection);
  });

  it('stops an idle thread and starts one again when a checkpoint is due; close stops it for good', async () => {
    const { checkpoints, answers, write } = walDatabase({ writesPerCheckpoint: 10, idleMs: 50 });
    for (let i = 0; i < 10; i++) write();
    await until(() => answers.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 10; i++) write();
    await until(() => answers.length === 2);
    expect(checkpoints.stats()).toMatchObject({ threads: 2, onConnection: 0, checkpoints: 2 });
    checkpoints.close();
    for (let i = 0; i < 50; i++) write();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(checkpoints.stats()).toMatchObject({ threads: 2, checkpoints: 2 });
  });
});
