import type { ExecutionExitState } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { createTypescriptEnvironment } from '../src';
import { createRecordingBindings, silentLogger, startEnvironment, waitFor } from './recording-bindings';

function holdingTools() {
  const held: (() => void)[] = [];
  const tools = {
    'gate.hold': () => new Promise((resolve) => held.push(() => resolve('released'))),
  };
  return { held, tools };
}

const HOLD = 'cyrnel.output({ r: await cyrnel.services.gate.tools.hold.invoke({}) });';

describe('pool', () => {
  it('runs at most poolSize executions at once and starts queued ones in FIFO order', async () => {
    const { held, tools } = holdingTools();
    // One execution per child: awaiting executions hold their slot (scheduling.test.ts: sharing).
    const sandbox = await startEnvironment({ poolSize: 2, executionsPerChild: 1 }, tools);
    try {
      const runs = [1, 2, 3, 4].map(() => sandbox.run(HOLD, 20_000));
      await waitFor(() => held.length === 2);
      expect(sandbox.log.filter((e) => e.endsWith(':running')).sort()).toEqual(['1:running', '2:running']);
      expect(sandbox.of(3).states).toEqual(['queued']);
      expect(sandbox.of(4).states).toEqual(['queued']);
      held.shift()?.();
      await waitFor(() => held.length === 2 && sandbox.of(3).states.length === 2);
      expect(sandbox.of(4).states).toEqual(['queued']);
      held.shift()?.();
      await waitFor(() => held.length === 2 && sandbox.of(4).states.length === 2);
      for (const release of held.splice(0)) release();
      const exits = (await Promise.all(runs)).map((r) => r.exit);
      expect(exits).toEqual(['success', 'success', 'success', 'success']);
      const starts = sandbox.log.filter((e) => e.endsWith(':running')).map((e) => Number.parseInt(e, 10));
      expect(starts.slice(2)).toEqual([3, 4]);
    } finally {
      await sandbox.env.teardown();
    }
  });

  it('cancels a queued execution without running it and a running one promptly', async () => {
    const { held, tools } = holdingTools();
    const sandbox = await startEnvironment({ poolSize: 1, executionsPerChild: 1 }, tools);
    try {
      const running = sandbox.run(HOLD, 20_000);
      const queued = sandbox.run(HOLD, 20_000);
      await waitFor(() => held.length === 1);
      await sandbox.env.kill(2);
      expect((await queued).exit).toBe('canceled');
      expect(sandbox.of(2).states).toEqual(['queued']);
      await sandbox.env.kill(1);
      expect((await running).exit).toBe('canceled');
      await sandbox.env.kill(999);
      const next = await sandbox.run('cyrnel.output({ ok: true });');
      expect(next.exit).toBe('success');
      expect(next.record.output).toEqual({ ok: true });
    } finally {
      await sandbox.env.teardown();
    }
  });

  it('cancels a running synchronous loop on kill', async () => {
    const sandbox = await startEnvironment({ poolSize: 1 });
    try {
      const looping = sandbox.run('for (;;) {}', 60_000);
      await waitFor(() => sandbox.of(1).states.includes('running'));
      await sandbox.env.kill(1);
      expect((await looping).exit).toBe('canceled');
      expect((await sandbox.run('cyrnel.output({ ok: 1 });')).exit).toBe('success');
    } finally {
      await sandbox.env.teardown();
    }
  });

  it('keeps serving other executions while one child crashes', async () => {
    const { held, tools } = holdingTools();
    const sandbox = await startEnvironment({ poolSize: 2, memoryLimitMb: 32 }, tools);
    try {
      const survivor = sandbox.run(HOLD, 30_000);
      await waitFor(() => held.length === 1);
      const bomb = await sandbox.run('const m = new Map(); for (let i = 0; ; i++) m.set(i, i);', 30_000);
      expect(bomb.exit).toBe('failed');
      expect(bomb.record.errors[0]).toMatch(/memory limit/);
      held.shift()?.();
      expect((await survivor).exit).toBe('success');
      expect((await sandbox.run('cyrnel.output({ ok: 1 });')).exit).toBe('success');
    } finally {
      await sandbox.env.teardown();
    }
  });

  it('teardown cancels queued and running work, and setup works again', async () => {
    const { held, tools } = holdingTools();
    const sandbox = await startEnvironment({ poolSize: 1, executionsPerChild: 1 }, tools);
    const running = sandbox.run(HOLD, 20_000);
    const queued = sandbox.run(HOLD, 20_000);
    await waitFor(() => held.length === 1);
    await sandbox.env.teardown();
    const exits: ExecutionExitState[] = [(await running).exit, (await queued).exit];
    expect(exits).toEqual(['canceled', 'canceled']);
    const again = await startEnvironment({ poolSize: 1 });
    try {
      expect((await again.run('cyrnel.output({ ok: 1 });')).exit).toBe('success');
    } finally {
      await again.env.teardown();
    }
  });

  it('serves again after teardown and setup on the same instance', async () => {
    const { held, tools } = holdingTools();
    const env = createTypescriptEnvironment();
    const first = createRecordingBindings(tools);
    const second = createRecordingBindings();
    const run = (eid: number) =>
      env.execute({ eid, code: HOLD, options: { timeoutMs: 20_000 }, envConfig: {} });
    await env.setup({
      config: { poolSize: 1, executionsPerChild: 1 },
      secrets: {},
      logger: silentLogger,
      bindings: first.bindings,
    });
    try {
      const running = run(1);
      const queued = run(2);
      await waitFor(() => held.length === 1);
      await env.teardown();
      expect([await running, await queued]).toEqual(['canceled', 'canceled']);
      await expect(run(3)).rejects.toThrow(/before setup/);

      await env.setup({
        config: { poolSize: 1 },
        secrets: {},
        logger: silentLogger,
        bindings: second.bindings,
      });
      const exit = await env.execute({
        eid: 4,
        code: 'cyrnel.output({ again: await cyrnel.services.gate.tools.hold.invoke({}).catch((e) => e.status) });',
        options: { timeoutMs: 5000 },
        envConfig: {},
      });
      expect(exit).toBe('success');
      // The new bindings answer now (they know no tools), and nothing reached the old ones.
      expect(second.of(4).output).toEqual({ again: 404 });
      expect(second.of(4).states).toEqual(['queued', 'running']);
      expect(first.of(4).states).toEqual([]);
      await env.teardown();
      await env.teardown();
      await env.setup({
        config: { poolSize: 1 },
        secrets: {},
        logger: silentLogger,
        bindings: second.bindings,
      });
      expect(
        await env.execute({
          eid: 5,
          code: 'cyrnel.output({ ok: 1 });',
          options: { timeoutMs: 5000 },
          envConfig: {},
        }),
      ).toBe('success');
    } finally {
      await env.teardown();
    }
  });

  it('runs many short executions through a small pool', async () => {
    const sandbox = await startEnvironment({ poolSize: 2 });
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => sandbox.run(`cyrnel.output({ i: ${i} });`)),
      );
      expect(results.map((r) => r.record.output.i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(results.every((r) => r.exit === 'success')).toBe(true);
    } finally {
      await sandbox.env.teardown();
    }
  });

  it('fails executions cleanly when the sandbox child cannot start', async () => {
    const env = createTypescriptEnvironment({ childPath: '/nonexistent/sandbox-child.js' });
    const { bindings, of } = createRecordingBindings();
    await env.setup({ config: { poolSize: 1 }, secrets: {}, logger: silentLogger, bindings });
    try {
      const exits = await Promise.all(
        [1, 2].map((eid) =>
          env.execute({ eid, code: 'cyrnel.output({});', options: { timeoutMs: 5000 }, envConfig: {} }),
        ),
      );
      expect(exits).toEqual(['failed', 'failed']);
      expect(of(1).errors[0]).toMatch(/exited unexpectedly/);
    } finally {
      await env.teardown();
    }
  });
});
