import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CyrnelHost, createHost, INTERRUPTED_ERROR } from '@cyrnel/core';
import { typescriptIvmModule } from '@cyrnel/env-typescript-ivm';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from './sqlite/open-sqlite-store';

// A program that keeps waiting: a pending timer (one waiting on nothing is ended at once).
const WAITS = 'await new Promise((resolve) => setTimeout(resolve, 60_000))';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startHost(dataDir: string): Promise<{ host: CyrnelHost; store: SqliteStore }> {
  const store = await openSqliteStore({ dataDir });
  const host = await createHost({
    storage: store,
    builtins: [typescriptIvmModule],
    dataDir,
    secretsKey: randomBytes(32),
  });
  cleanups.push(async () => {
    await host.close({ graceMs: 0 });
    await store.close();
  });
  return { host, store };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-host-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('processes through createHost and openSqliteStore', () => {
  it('runs code on the built-in typescript-ivm environment and keeps the results', async () => {
    const { host } = await startHost(tempDir());
    const { id } = await host.processes.create({
      code: 'const n: number = 6 * 7; console.log(n); cyrnel.output({ n })',
    });
    expect(await host.processes.wait(id)).toMatchObject({
      exitState: 'success',
      stdout: '42\n',
      output: { n: 42 },
    });
    await expect(
      host.processes.wait(
        (await host.processes.create({ code: 'await cyrnel.services.none.tools.x.invoke({})' })).id,
      ),
    ).resolves.toMatchObject({ exitState: 'failed', error: expect.stringContaining('none') });
  });

  it('records a process interrupted by a stop as failed when the host starts again', async () => {
    const dataDir = tempDir();
    const first = await startHost(dataDir);
    const { id } = await first.host.processes.create({
      code: WAITS,
      timeoutMs: null,
    });
    // Simulate a crash: the row stays `queued`/`running` because close() is never reached. The
    // first host is left running: its writes held back (the start of a run) land first.
    while ((await first.host.processes.get(id)).state !== 'running')
      await new Promise((r) => setTimeout(r, 5));
    await first.host.processes.list({});
    const at = new Date().toISOString();
    await first.store.processes.update(id, { state: 'running', startedAt: at, updatedAt: at });
    const second = await startHost(dataDir);
    expect(await second.host.processes.get(id)).toMatchObject({
      state: 'idle',
      exitState: 'failed',
      error: INTERRUPTED_ERROR,
    });
  });
});
