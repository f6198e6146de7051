import { describe, expect, it } from 'vitest';
import { startEnvironment, waitFor } from './recording-bindings';

const tools = { 'svc.echo': (p: unknown) => p };

describe('stats of the sandbox pool', () => {
  it('counts children, running and waiting executions, waits and deaths', async () => {
    const sandbox = await startEnvironment({ poolSize: 1 }, tools);
    const stats = () => sandbox.env.stats?.();
    try {
      // Warm from the start: one child, idle.
      await waitFor(() => stats()?.sandboxes === 1);
      expect(stats()).toMatchObject({ idleSandboxes: 1, running: 0, queued: 0, waits: 0, crashes: 0 });
      const looping = sandbox.run('for (;;) {}', 60_000);
      await waitFor(() => sandbox.of(1).states.includes('running'));
      expect(stats()).toMatchObject({ sandboxes: 1, idleSandboxes: 0, running: 1, queued: 0 });
      // The only child computes: the next execution waits for it.
      const waiting = sandbox.run('cyrnel.output({ ok: true });');
      await waitFor(() => stats()?.queued === 1);
      expect(stats()?.waits).toBe(1);
      await sandbox.env.kill(1);
      expect((await looping).exit).toBe('canceled');
      expect((await waiting).exit).toBe('success');
      await waitFor(() => stats()?.running === 0 && stats()?.queued === 0);
      // A child killed from outside is a death the pool replaces.
      const [pid] = sandbox.children.live();
      process.kill(pid as number, 'SIGKILL');
      await waitFor(() => stats()?.crashes === 1);
      await waitFor(() => stats()?.sandboxes === 1 && sandbox.children.live()[0] !== pid);
      expect((await sandbox.run('cyrnel.output({ again: true });')).exit).toBe('success');
    } finally {
      await sandbox.env.teardown();
    }
    // A torn-down environment has no pool left.
    expect(stats()).toEqual({ sandboxes: 0, idleSandboxes: 0, running: 0, queued: 0, waits: 0, crashes: 0 });
  });

  it('forks only warmSandboxes children at start, the others when work comes', async () => {
    const sandbox = await startEnvironment({ poolSize: 2, warmSandboxes: 0 }, tools);
    const stats = () => sandbox.env.stats?.();
    try {
      expect(stats()).toMatchObject({ sandboxes: 0, idleSandboxes: 0 });
      expect(sandbox.children.live()).toEqual([]);
      // The first execution forks one child and runs in it; the pool keeps it.
      expect((await sandbox.run('cyrnel.output({ first: true });')).exit).toBe('success');
      expect(stats()).toMatchObject({ sandboxes: 1, idleSandboxes: 1, running: 0 });
      expect(sandbox.children.live()).toHaveLength(1);
    } finally {
      await sandbox.env.teardown();
    }
    const warm = await startEnvironment({ poolSize: 2, warmSandboxes: 1 }, tools);
    try {
      await waitFor(() => warm.env.stats?.()?.sandboxes === 1);
      expect(warm.env.stats?.()).toMatchObject({ idleSandboxes: 1 });
    } finally {
      await warm.env.teardown();
    }
  });
});
