import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypescriptEnvironment } from '../src';
import { type ChildExitEvent, createSandboxPool } from '../src/host/sandbox-pool';
import { resolveChildPath } from '../src/host/typescript-environment';
import { CATASTROPHIC_ERROR_MARKER } from '../src/shared/sandbox-protocol';
import {
  createRecordingBindings,
  createRecordingLogger,
  type startEnvironment as Start,
  startEnvironment,
  waitFor,
} from './recording-bindings';

const BOMBS = {
  Map: 'const m = new Map(); for (let i = 0; ; i++) m.set(i, i);',
  Set: 'const s = new Set(); for (let i = 0; ; i++) s.add(i);',
  dictionary: "const o: Record<string, number> = {}; for (let i = 0; ; i++) o['k' + i] = i;",
};
const RESTARTED =
  /^This execution crashed its sandbox process: V8 ran out of heap for an execution \(.* escapes the \d+ MB memory limit of an execution\) and the sandbox process aborted; it was stopped and the sandbox restarted$/;
const CAUGHT = /^The execution hit the memory limit of \d+ MB and was stopped$/;

async function expectHealthy(sandbox: Awaited<ReturnType<typeof Start>>) {
  const { exit, record } = await sandbox.run(
    'cyrnel.output({ ok: await cyrnel.services.svc.tools.echo.invoke({ v: 1 }) });',
  );
  expect(exit).toBe('success');
  expect(record.output).toEqual({ ok: { v: 1 } });
}

describe('memory bombs that abort the sandbox process', () => {
  let sandbox: Awaited<ReturnType<typeof Start>>;
  beforeAll(async () => {
    sandbox = await startEnvironment({ poolSize: 1, memoryLimitMb: 32 }, { 'svc.echo': (p) => p });
  });
  afterAll(() => sandbox.env.teardown());

  // V8 decides whether growing a Map or Set trips isolated-vm's limit (the isolate is disposed,
  // the child lives) or aborts the process first; dictionary growth aborted in every run measured.
  it.each(Object.entries(BOMBS))('fails a %s bomb and replaces a child that died', async (kind, code) => {
    const [pid] = sandbox.children.live();
    const deaths = sandbox.children.exited().length;
    const { exit, record } = await sandbox.run(code, 30_000);
    expect(exit).toBe('failed');
    const error = record.errors[0] ?? '';
    if (kind === 'dictionary') expect(error).toMatch(RESTARTED);
    if (RESTARTED.test(error)) {
      expect(record.reasons).toEqual(['sandbox_crashed']);
      expect(sandbox.children.exited().slice(deaths)).toEqual([
        { pid, code: null, signal: 'SIGABRT', respawnDelayMs: 0 },
      ]);
      await waitFor(() => sandbox.children.live().length === 1);
      expect(sandbox.children.live()).not.toContain(pid);
    } else {
      expect(error).toMatch(CAUGHT);
      expect(sandbox.children.live()).toEqual([pid]);
    }
    await expectHealthy(sandbox);
  });

  it('replaces children that die right after starting without a backoff', async () => {
    const fast = await startEnvironment({ poolSize: 1, memoryLimitMb: 8 }, { 'svc.echo': (p) => p });
    try {
      for (let i = 0; i < 2; i++) {
        const { exit, record } = await fast.run(BOMBS.dictionary, 30_000);
        expect(exit).toBe('failed');
        expect(record.errors[0]).toMatch(RESTARTED);
      }
      await expectHealthy(fast);
      const deaths = fast.children.exited();
      expect(deaths).toHaveLength(2);
      expect(deaths.map((d) => d.respawnDelayMs)).toEqual([0, 0]);
      expect(fast.children.started()).toHaveLength(3);
    } finally {
      await fast.env.teardown();
    }
  });
});

describe('a sandbox process that stops answering', () => {
  it('is killed by the host backstop and replaced', async () => {
    const pids: (number | undefined)[] = [];
    const exits: ChildExitEvent[] = [];
    const pool = createSandboxPool({
      size: 1,
      childPath: resolveChildPath(),
      memoryLimitMb: 32,
      graceMs: 100,
      onChildStart: ({ pid }) => pids.push(pid),
      onChildExit: (event) => exits.push(event),
    });
    const job = { timeoutMs: 300, stdoutCapBytes: 1024, stderrCapBytes: 1024, outputCapBytes: 1024 };
    const written: string[] = [];
    const handlers = (onStart: () => void) => ({
      started: onStart,
      call: () => new Promise<never>(() => {}),
      write: (_stream: string, text: string) => void written.push(text),
      output: () => {},
    });
    try {
      expect(
        await pool.run(
          1,
          // Far from its deadline: starting the sandbox is not what is tested.
          { ...job, timeoutMs: 30_000, code: "console.log('warm');" },
          handlers(() => {}),
        ),
      ).toEqual({
        exit: 'success',
        cpuMs: expect.any(Number),
      });
      const stopped = pool.run(
        2,
        { ...job, code: 'await cyrnel.services.svc.tools.never.invoke({});' },
        handlers(() => process.kill(pids[0] as number, 'SIGSTOP')),
      );
      expect(await stopped).toEqual({ exit: 'timeout' });
      expect(exits).toEqual([
        { pid: pids[0], code: null, signal: 'SIGKILL', started: true, respawnDelayMs: 0 },
      ]);
      const next = await pool.run(
        3,
        { ...job, timeoutMs: 30_000, code: "console.log('alive');" },
        handlers(() => {}),
      );
      expect(next).toEqual({ exit: 'success', cpuMs: expect.any(Number) });
      expect(written).toEqual(['warm\n', 'alive\n']);
      expect(pids).toHaveLength(2);
      expect(pids[1]).not.toBe(pids[0]);
    } finally {
      await pool.close();
    }
  });
});

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('sandbox processes without work', () => {
  it('stop after idleTimeoutMs and come back on demand, never more than poolSize', async () => {
    const sandbox = await startEnvironment({ poolSize: 2, idleTimeoutMs: 400 }, { 'svc.echo': (p) => p });
    try {
      const first = sandbox.children.started();
      expect(first).toHaveLength(2);
      await waitFor(() => sandbox.children.retired().length === 2);
      expect(sandbox.children.retired().sort()).toEqual([...first].sort());
      await waitFor(() => first.every((pid) => !running(pid)));
      // Retiring is not a crash: nothing was replaced.
      expect(sandbox.children.exited()).toEqual([]);
      expect(sandbox.children.live()).toEqual([]);

      // Five at once on a pool of two: two children are forked again, the rest queue for them.
      const runs = await Promise.all(
        [1, 2, 3, 4, 5].map((v) =>
          sandbox.run(`cyrnel.output({ v: await cyrnel.services.svc.tools.echo.invoke({ v: ${v} }) });`),
        ),
      );
      expect(runs.map(({ exit, record }) => ({ exit, output: record.output }))).toEqual(
        [1, 2, 3, 4, 5].map((v) => ({ exit: 'success', output: { v: { v } } })),
      );
      expect(sandbox.children.started()).toHaveLength(4);
      expect(sandbox.children.live()).toHaveLength(2);
      expect(sandbox.children.live().every(running)).toBe(true);

      await waitFor(() => sandbox.children.retired().length === 4);
      expect(sandbox.children.exited()).toEqual([]);
    } finally {
      await sandbox.env.teardown();
    }
  });
});

describe('a sandbox process and terminal signals', () => {
  it('runs in its own process group, so a Ctrl-C in the server terminal does not reach it', async () => {
    const sandbox = await startEnvironment({ poolSize: 1 }, {});
    try {
      const [pid] = sandbox.children.live();
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm has no spaces for node.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ');
      expect(Number(fields[4])).toBe(pid);
    } finally {
      await sandbox.env.teardown();
    }
  });

  it('keeps running its execution through SIGINT and SIGTERM sent to it', async () => {
    const sandbox = await startEnvironment({ poolSize: 1 }, {});
    try {
      const [pid] = sandbox.children.live();
      // Once the child has run a program, its handlers are in place (they are installed first
      // thing, but a signal during Node's own start-up would still find the default action).
      expect((await sandbox.run('cyrnel.output({ warm: true });')).exit).toBe('success');
      const running = sandbox.run(
        'await new Promise((r) => setTimeout(r, 300)); cyrnel.output({ done: true });',
      );
      process.kill(pid as number, 'SIGINT');
      process.kill(pid as number, 'SIGTERM');
      const { exit, record } = await running;
      expect({ exit, errors: record.errors, output: record.output }).toEqual({
        exit: 'success',
        errors: [],
        output: { done: true },
      });
      expect(sandbox.children.live()).toEqual([pid]);
    } finally {
      await sandbox.env.teardown();
    }
  });
});

describe('a sandbox process that reports a catastrophic error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-child-'));
  const childPath = join(dir, 'catastrophic-child.mjs');
  // A real child speaking the protocol: it reports the job's code as V8's message, then aborts
  // the way sandbox-server does on isolated-vm's onCatastrophicError (code starting with `raw:`:
  // the rest is written as is, as V8 does when the process's own heap runs out).
  writeFileSync(
    childPath,
    `import { writeSync } from 'node:fs';
process.on('message', (m) => {
  if (m.t !== 'run') return;
  const raw = m.job.code.startsWith('raw:');
  writeSync(2, (raw ? m.job.code.slice(4) : ${JSON.stringify(CATASTROPHIC_ERROR_MARKER)} + m.job.code) + '\\n');
  process.abort();
});
process.send({ t: 'batch', m: [{ t: 'ready' }] });
`,
  );
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [
      'names a non-memory failure',
      'Check failed: heap verification',
      /^This execution crashed its sandbox process: the sandbox's JavaScript engine hit a catastrophic error \(Check failed: heap verification\) and the sandbox process aborted; it was stopped and the sandbox restarted$/,
    ],
    ['reports an out-of-memory abort as the memory limit', 'Catastrophic out-of-memory error', RESTARTED],
    [
      "reports the sandbox process's own heap running out without blaming the memory limit of an execution",
      'raw:FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
      /^This execution crashed its sandbox process: the sandbox process exhausted its own heap \(256 MB, through which tool answers, call arguments and output pass\) and aborted; it was stopped and the sandbox restarted$/,
    ],
  ])('%s', async (_name, reported, message) => {
    const env = createTypescriptEnvironment({ childPath });
    const { bindings, of } = createRecordingBindings();
    const children = createRecordingLogger();
    await env.setup({
      config: { poolSize: 1, memoryLimitMb: 16 },
      secrets: {},
      logger: children.logger,
      bindings,
    });
    try {
      const exit = await env.execute({ eid: 1, code: reported, options: { timeoutMs: 5000 }, envConfig: {} });
      expect(exit).toBe('failed');
      expect(of(1).errors).toHaveLength(1);
      expect(of(1).errors[0]).toMatch(message);
      if (reported.startsWith('raw:')) expect(of(1).errors[0]).not.toMatch(/memory limit|16 MB/);
      expect(of(1).reasons).toEqual(['sandbox_crashed']);
      expect(children.exited()).toEqual([
        { pid: children.started()[0], code: null, signal: 'SIGABRT', respawnDelayMs: 0 },
      ]);
    } finally {
      await env.teardown();
    }
  });
});
