import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypescriptEnvironment } from '../src';
import {
  createRecordingBindings,
  type startEnvironment as Start,
  silentLogger,
  startEnvironment,
} from './recording-bindings';

/** Run `code` and measure the wall time of the whole `execute` around it. */
async function timed(sandbox: Awaited<ReturnType<typeof Start>>, code: string, timeoutMs?: number) {
  const started = performance.now();
  const ran = await sandbox.run(code, timeoutMs);
  return { ...ran, wallMs: performance.now() - started };
}

describe('the CPU time of an execution', () => {
  let sandbox: Awaited<ReturnType<typeof Start>>;
  beforeAll(async () => {
    sandbox = await startEnvironment({ poolSize: 1 });
  });
  afterAll(() => sandbox.env.teardown());

  it("reports its isolate's CPU time once, before execute resolves, within the run's wall time", async () => {
    const { exit, record, wallMs } = await timed(
      sandbox,
      'let x = 0; for (let i = 0; i < 2_000_000; i++) x += i % 7; cyrnel.output({ x });',
    );
    expect(exit).toBe('success');
    expect(record.usage).toHaveLength(1);
    const [{ cpuMs } = { cpuMs: -1 }] = record.usage;
    expect(cpuMs).toBeGreaterThan(0);
    expect(cpuMs).toBeLessThanOrEqual(wallMs);
    // A warm isolate runs the next execution: it reports its own time, not the sum so far.
    const next = await timed(sandbox, 'cyrnel.output({ ok: true });');
    expect(next.record.usage).toHaveLength(1);
    expect(next.record.usage[0]?.cpuMs).toBeLessThanOrEqual(next.wallMs);
  });

  it('reports it for a run its deadline stopped (read before the isolate is disposed)', async () => {
    const { exit, record, wallMs } = await timed(sandbox, 'for (;;) {}', 300);
    expect(exit).toBe('timeout');
    expect(record.usage).toHaveLength(1);
    expect(record.usage[0]?.cpuMs).toBeGreaterThan(0);
    expect(record.usage[0]?.cpuMs).toBeLessThanOrEqual(wallMs);
  });
});

describe('a sandbox process that claims a malformed CPU time', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-child-'));
  const childPath = join(dir, 'lying-child.mjs');
  // A real child speaking the protocol: each run ends at once, claiming the CPU time its code
  // names (JSON), so the host's handling of what the untrusted child says is what is tested.
  writeFileSync(
    childPath,
    `process.on('message', (m) => {
  if (m.t !== 'run') return;
  process.send({ t: 'batch', m: [{ t: 'done', eid: m.eid, exit: 'success', cpuMs: JSON.parse(m.job.code) }] });
});
process.send({ t: 'batch', m: [{ t: 'ready' }] });
`,
  );
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes on a finite, non-negative number only', async () => {
    const env = createTypescriptEnvironment({ childPath });
    const { bindings, of } = createRecordingBindings();
    await env.setup({ config: { poolSize: 1 }, secrets: {}, logger: silentLogger, bindings });
    try {
      const claims = ['-5', '"12"', 'null', '{"n":1}', '1e999', '4.5'];
      for (const [index, code] of claims.entries()) {
        const exit = await env.execute({ eid: index + 1, code, options: { timeoutMs: 5000 }, envConfig: {} });
        expect(exit).toBe('success');
      }
      expect(claims.map((_code, index) => of(index + 1).usage)).toEqual([
        [],
        [],
        [],
        [],
        [],
        [{ cpuMs: 4.5 }],
      ]);
    } finally {
      await env.teardown();
    }
  });
});
