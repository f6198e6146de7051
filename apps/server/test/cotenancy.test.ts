import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, startTestServer, tempDir } from './helpers';

/** Sleeps first, so the other key's programs arrive while it waits; then grows a Set until V8 gives up. */
const BOMB =
  'await new Promise((r) => setTimeout(r, 3000)); const s = new Set(); for (let i = 0; ; i++) s.add(i);';
/**
 * Writes a line (so a crash under it could not be hidden by running it again), waits (sharing a
 * sandbox process with its key's others), then answers.
 */
const INNOCENT = (n: number) =>
  `console.log('started'); await new Promise((r) => setTimeout(r, 6000)); cyrnel.output({ n: ${n} });`;

describe('processes of two keys beside a memory bomb', () => {
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  let server: RunningServer | undefined;
  const agents: Record<'bomber' | 'bystander', ReturnType<typeof apiClient>> = {} as never;

  beforeAll(async () => {
    dir = await tempDir();
    server = await startTestServer({ dataDir: dir.path, port: 0, apiKey: 'bootstrap-admin' });
    const admin = apiClient(server.url, 'bootstrap-admin');
    for (const name of ['bomber', 'bystander'] as const) {
      const created = await admin('POST', '/keys', { name, role: 'agent' });
      expect(created.status).toBe(201);
      agents[name] = apiClient(server.url, created.body.key);
    }
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
  });

  it("fails none of another key's 14 processes, and records the crash as sandbox_crashed", async () => {
    const run = (agent: ReturnType<typeof apiClient>, code: string) =>
      agent('POST', '/processes', { code, timeoutMs: 120_000, wait: true });
    const bomb = run(agents.bomber, BOMB);
    const innocents = Array.from({ length: 14 }, (_, n) => run(agents.bystander, INNOCENT(n)));
    const ended = await Promise.all(innocents);
    expect(ended.map((r) => r.status)).toEqual(Array(14).fill(201));
    const failed = ended.filter((r) => r.body.exitState !== 'success');
    expect(failed.map((r) => r.body)).toEqual([]);
    expect(ended.map((r) => r.body.output)).toEqual(Array.from({ length: 14 }, (_, n) => ({ n })));

    const bombed = await bomb;
    console.info(
      `bomb: ${bombed.body.errorReason}; innocent processes of another key failed: ${failed.length} of 14`,
    );
    expect(bombed.body.exitState).toBe('failed');
    // V8 decides whether the Set's growth trips the isolate's limit or aborts the process.
    if (bombed.body.errorReason === 'sandbox_crashed') {
      expect(bombed.body.error).toMatch(
        /^This execution crashed its sandbox process: V8 ran out of heap for an execution/,
      );
    } else {
      expect(bombed.body.errorReason).toBeNull();
      expect(bombed.body.error).toMatch(/memory limit/);
    }
  }, 180_000);
});
