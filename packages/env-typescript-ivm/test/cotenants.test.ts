import type { ExecutionExitState } from '@cyrnel/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createTypescriptEnvironment } from '../src';
import { createSandboxPool } from '../src/host/sandbox-pool';
import { resolveChildPath } from '../src/host/typescript-environment';
import { createRecordingBindings, createRecordingLogger, type Recorded, waitFor } from './recording-bindings';

/**
 * Two tenants (API keys) on a pool of two children. The bystander key runs 14 innocent programs
 * while the other key's bomb crashes the child it shares with its own co-tenants.
 */
const BOMBS = {
  Map: 'const m = new Map(); for (let i = 0; ; i++) m.set(i, i);',
  Set: 'const s = new Set(); for (let i = 0; ; i++) s.add(i);',
  dictionary: "const o: Record<string, number> = {}; for (let i = 0; ; i++) o['k' + i] = i;",
  'huge string and array':
    "const parts: string[] = []; for (;;) parts.push('x'.repeat(1 << 20) + parts.length);",
};

/** What a program does before the crash, and so how a crash of its child must end it. */
const CO_TENANTS = {
  // Only reads the catalog (held until after the crash): run again, succeeds.
  clean: 'const found = await cyrnel.discover.services(); cyrnel.output({ found: found.length });',
  // Made a tool call: must not run again.
  called: "await cyrnel.services.gate.tools.hold.invoke({}); cyrnel.output({ ok: 'called' });",
  // Wrote stdout: must not run again (the output would be written twice).
  wrote: "console.log('hello'); await cyrnel.discover.services(); cyrnel.output({ ok: 'wrote' });",
};

/** An environment whose tool calls and catalog reads wait until the test releases them. */
async function startHeld(poolSize = 2) {
  const env = createTypescriptEnvironment();
  let open = false;
  const held: (() => void)[] = [];
  const hold = <T>(value: T) =>
    open ? Promise.resolve(value) : new Promise<T>((resolve) => held.push(() => resolve(value)));
  const discoveries = new Map<number, number>();
  const { bindings, of } = createRecordingBindings({ 'gate.hold': () => hold('released') });
  const discoverServices = bindings.discoverServices.bind(bindings);
  bindings.discoverServices = (eid, query) => {
    discoveries.set(eid, (discoveries.get(eid) ?? 0) + 1);
    return discoverServices(eid, query).then(hold);
  };
  const children = createRecordingLogger();
  await env.setup({
    config: { poolSize, executionsPerChild: 16, memoryLimitMb: 32 },
    secrets: {},
    logger: children.logger,
    bindings,
  });
  let next = 1;
  const run = (code: string, tenant: string) => {
    const eid = next++;
    const exit = env.execute({ eid, code, options: { timeoutMs: 120_000 }, envConfig: {}, tenant });
    return { eid, exit };
  };
  const release = () => {
    open = true;
    for (const resolve of held.splice(0)) resolve();
  };
  const reclose = () => {
    open = false;
  };
  return { env, of, children, run, release, reclose, held, discoveries };
}

type Held = Awaited<ReturnType<typeof startHeld>>;
let current: Held | undefined;
afterEach(async () => {
  await current?.env.teardown();
  current = undefined;
});

/** One round: 14 innocents of `bystander`, co-tenants and the bomb of `bomber`; how each ended. */
async function round(sandbox: Held, bomb: string) {
  const { run, of, children, held } = sandbox;
  sandbox.reclose();
  const waitingBefore = held.length;
  // The bystander's first run takes a child, so the bomber's programs all share the other one.
  const innocents = [run(CO_TENANTS.called, 'bystander')];
  await waitFor(() => held.length === waitingBefore + 1, 60_000);
  const coTenants = Object.entries(CO_TENANTS).map(([kind, code]) => ({ kind, ...run(code, 'bomber') }));
  for (let i = 1; i < 14; i++) {
    const kind = Object.keys(CO_TENANTS)[i % 3] as keyof typeof CO_TENANTS;
    innocents.push(run(CO_TENANTS[kind], 'bystander'));
  }
  // Everything waits on the host: the bomb joins the co-tenants' child.
  await waitFor(() => held.length === waitingBefore + 17, 60_000);
  const deaths = children.exited().length;
  const bombed = run(bomb, 'bomber');
  const bombExit = await bombed.exit;
  const crashed = children.exited().length > deaths;
  sandbox.release();
  const ends = async (runs: { eid: number; exit: Promise<ExecutionExitState> }[]) =>
    Promise.all(runs.map(async ({ eid, exit }) => ({ eid, exit: await exit, record: of(eid) })));
  return {
    crashed,
    bomb: { exit: bombExit, record: of(bombed.eid) },
    innocents: await ends(innocents),
    coTenants: (await ends(coTenants)).map((end, i) => ({ ...end, kind: coTenants[i]?.kind })),
  };
}

const failed = (ends: { exit: ExecutionExitState; record: Recorded }[]) =>
  ends.filter((end) => end.exit !== 'success').length;

describe('a crash of one tenant’s sandbox process', () => {
  it.each(Object.entries(BOMBS))(
    'fails none of 14 runs of another key beside a %s bomb; same-key runs retried or failed as collateral',
    async (name, bomb) => {
      current = await startHeld();
      const sandbox = current;
      // Whether a Map or Set bomb aborts the child or trips isolated-vm's limit is V8's choice:
      // a few rounds, until one crashed (the dictionary bomb crashes every time measured).
      const rounds: Awaited<ReturnType<typeof round>>[] = [];
      for (let i = 0; i < 3 && !rounds.some((r) => r.crashed); i++) rounds.push(await round(sandbox, bomb));
      for (const r of rounds) {
        expect(failed(r.innocents)).toBe(0);
        expect(r.bomb.exit).toBe('failed');
        const byKind = Object.fromEntries(r.coTenants.map((c) => [c.kind, c]));
        if (!r.crashed) {
          // Caught by the limit of the bomb's own isolate: nobody else noticed.
          expect(failed(r.coTenants)).toBe(0);
          continue;
        }
        expect(r.bomb.record.reasons).toEqual(['sandbox_crashed']);
        expect(r.bomb.record.errors[0]).toMatch(/^This execution crashed its sandbox process: /);
        // Run again on a fresh child: its catalog read came twice, and it succeeded.
        expect(byKind.clean?.exit).toBe('success');
        expect(byKind.clean?.record.output).toEqual({ found: 1 });
        expect(sandbox.discoveries.get(byKind.clean?.eid ?? 0)).toBe(2);
        for (const kind of ['called', 'wrote']) {
          expect(byKind[kind]?.exit).toBe('failed');
          expect(byKind[kind]?.record.reasons).toEqual(['sandbox_collateral']);
          expect(byKind[kind]?.record.errors[0]).toMatch(
            /^Another execution of the same key sharing this sandbox process crashed it .*; it had already made tool calls or written output, so it was not run again: run it again$/,
          );
        }
      }
      if (name === 'dictionary') expect(rounds.some((r) => r.crashed)).toBe(true);
      const last = rounds.at(-1);
      console.info(
        `${name} bomb: ${rounds.length} round(s), crashed: ${rounds.map((r) => r.crashed).join('/')}; ` +
          `innocent runs of another key failed: ${rounds.map((r) => failed(r.innocents)).join('/')} of 14; ` +
          `same-key co-tenants: ${last?.coTenants.map((c) => `${c.kind} ${c.exit}${c.record.reasons[0] ? ` (${c.record.reasons[0]})` : ''}`).join(', ')}`,
      );
    },
    300_000,
  );
});

describe('children per tenant', () => {
  it('never lets two tenants share a child, and stops an idle child of another tenant to make room', async () => {
    const env = createTypescriptEnvironment();
    const { bindings, of } = createRecordingBindings();
    const children = createRecordingLogger();
    current = { env } as Held;
    await env.setup({ config: { poolSize: 1 }, secrets: {}, logger: children.logger, bindings });
    const pidOf = async (eid: number, tenant: string) => {
      const code = "cyrnel.output({ pid: await cyrnel.discover.services().then(() => 'ok') });";
      expect(await env.execute({ eid, code, options: { timeoutMs: 60_000 }, envConfig: {}, tenant })).toBe(
        'success',
      );
      expect(of(eid).output).toEqual({ pid: 'ok' });
      return children.live();
    };
    const [warm] = children.live();
    // The warm child serves the first tenant, and it keeps it.
    expect(await pidOf(1, 'alice')).toEqual([warm]);
    expect(await pidOf(2, 'alice')).toEqual([warm]);
    // The pool is full: Alice's idle child is stopped, Bob gets a child of his own.
    const bob = await pidOf(3, 'bob');
    expect(bob).toHaveLength(1);
    expect(bob).not.toContain(warm);
    expect(children.evicted()).toEqual([warm]);
    expect(await pidOf(4, 'bob')).toEqual(bob);
    expect(children.exited()).toEqual([]);
  }, 120_000);

  it('stops only idle children: executions of one child ending together leave it idle once', async () => {
    current = await startHeld(1);
    const { run, held, children, of, release, reclose } = current;
    // Three of Alice's executions share the child and end in the same turn.
    const alice = [1, 2, 3].map(() => run(CO_TENANTS.clean, 'alice'));
    await waitFor(() => held.length === 3, 60_000);
    release();
    for (const { exit } of alice) expect(await exit).toBe('success');
    reclose();
    // Bob's execution takes Alice's idle child's place; Alice's next ones get a child again.
    const bob = run(CO_TENANTS.clean, 'bob');
    await waitFor(() => held.length === 1, 60_000);
    const again = [run(CO_TENANTS.clean, 'alice'), run(CO_TENANTS.clean, 'alice')];
    release();
    expect(await bob.exit).toBe('success');
    for (const { eid, exit } of again) {
      expect(await exit).toBe('success');
      expect(of(eid).output).toEqual({ found: 1 });
    }
    expect(children.evicted()).toHaveLength(2);
    expect(children.exited()).toEqual([]);
  }, 120_000);

  it('runs the untouched executions again, each alone, when a crash names no cause', async () => {
    current = await startHeld(1);
    const { run, held, children, of, discoveries } = current;
    const runs = [
      run(CO_TENANTS.clean, 'solo'),
      run(CO_TENANTS.clean, 'solo'),
      run(CO_TENANTS.called, 'solo'),
    ];
    await waitFor(() => held.length === 3, 60_000);
    const [pid] = children.live();
    // Killed from outside: nothing says which one caused it.
    process.kill(pid as number, 'SIGKILL');
    await waitFor(() => children.exited().length === 1, 60_000);
    current.release();
    const ends = await Promise.all(runs.map(async ({ eid, exit }) => ({ eid, exit: await exit })));
    expect(ends.map((end) => end.exit)).toEqual(['success', 'success', 'failed']);
    for (const { eid } of ends.slice(0, 2)) {
      expect(of(eid).output).toEqual({ found: 1 });
      expect(discoveries.get(eid)).toBe(2);
    }
    // The one that made a tool call may be the cause as much as any other: crashed, not collateral.
    const called = of(ends[2]?.eid ?? 0);
    expect(called.reasons).toEqual(['sandbox_crashed']);
    expect(called.errors[0]).toMatch(
      /^The sandbox process running this execution crashed: the sandbox process exited unexpectedly \(SIGKILL\); .*2 other execution\(s\) of the same key sharing the sandbox, any of which may have caused it; it had already made tool calls/,
    );
  }, 120_000);
});

describe('the pool', () => {
  /** A pool of one child (four executions each), recording the pid of every child it forks. */
  const smallPool = () => {
    const pids: (number | undefined)[] = [];
    const pool = createSandboxPool({
      size: 1,
      executionsPerChild: 4,
      childPath: resolveChildPath(),
      memoryLimitMb: 32,
      onChildStart: ({ pid }) => pids.push(pid),
    });
    return { pool, pids };
  };

  it("forks a child beyond the pool's size for a key that has none while another key's runs wait on the host", async () => {
    const { pool, pids } = smallPool();
    const answers: (() => void)[] = [];
    const handlers = {
      started: () => {},
      call: () => new Promise((resolve) => answers.push(() => resolve([]))),
      write: () => {},
      output: () => {},
    };
    const job = (code: string) => ({
      code,
      timeoutMs: 60_000,
      stdoutCapBytes: 1024,
      stderrCapBytes: 1024,
      outputCapBytes: 1024,
    });
    try {
      // Key A holds the only child with a run that waits on the host.
      const waiting = pool.run(1, job('await cyrnel.discover.services();'), handlers, 'a');
      await waitFor(() => answers.length === 1, 60_000);
      // Key B does not wait for it: it gets a child of its own, beyond the pool's size.
      expect(await pool.run(2, job('cyrnel.output({ ok: true });'), handlers, 'b')).toEqual({
        exit: 'success',
        cpuMs: expect.any(Number),
      });
      expect(pids).toHaveLength(2);
      answers[0]?.();
      expect(await waiting).toEqual({ exit: 'success', cpuMs: expect.any(Number) });
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('does not run again an execution reported as having acted through another channel', async () => {
    const { pool, pids } = smallPool();
    const answers: (() => void)[] = [];
    const calls = new Map<number, number>();
    const handlers = (eid: number) => ({
      started: () => {},
      call: () => {
        calls.set(eid, (calls.get(eid) ?? 0) + 1);
        return new Promise((resolve) => answers.push(() => resolve([])));
      },
      write: () => {},
      output: () => {},
    });
    const job = {
      code: 'await cyrnel.discover.services(); cyrnel.output({ ok: true });',
      timeoutMs: 60_000,
      stdoutCapBytes: 1024,
      stderrCapBytes: 1024,
      outputCapBytes: 1024,
    };
    try {
      const quiet = pool.run(1, job, handlers(1), 'key');
      const acted = pool.run(2, job, handlers(2), 'key');
      await waitFor(() => answers.length === 2, 60_000);
      pool.touched(2);
      process.kill(pids[0] as number, 'SIGKILL');
      const failed = await acted;
      expect(failed.reason).toBe('sandbox_crashed');
      expect(failed.error).toMatch(
        /it had already made tool calls or written output, so it was not run again/,
      );
      // The other one asks again from a fresh child: answer it there.
      await waitFor(() => answers.length === 3, 60_000);
      answers[2]?.();
      expect(await quiet).toEqual({ exit: 'success', cpuMs: expect.any(Number) });
      expect([...calls]).toEqual([
        [1, 2],
        [2, 1],
      ]);
      expect(pids).toHaveLength(2);
    } finally {
      await pool.close();
    }
  }, 120_000);
});
