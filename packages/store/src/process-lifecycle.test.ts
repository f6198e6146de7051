import {
  createProcessManager,
  cyrnelError,
  type EnvironmentProvider,
  INTERRUPTED_ERROR,
  KILLED_ERROR,
  type ProcessLimits,
  type ProcessManager,
  SHUTDOWN_ERROR,
  type ToolGateway,
} from '@cyrnel/core';
import { createTypescriptEnvironment } from '@cyrnel/env-typescript-ivm';
import type { EnvironmentModule } from '@cyrnel/sdk';
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Database } from './database';
import { createProcessStore } from './process-store';
import { createProcessTestDatabase, type ProcessTestDatabase } from './process-test-database';

// A program that keeps waiting: a pending timer (one waiting on nothing is ended at once).
const WAITS = 'await new Promise((resolve) => setTimeout(resolve, 60_000))';

const logger = { debug() {}, info() {}, warn() {}, error() {} };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Test scaffolding for the host's tool port: two tools in a Map. */
function mapTools(): ToolGateway {
  let count = 0;
  const tools = new Map<string, (parameters: Record<string, unknown>) => unknown>([
    ['math.double', (parameters) => ({ value: Number(parameters.n) * 2 })],
    ['math.count', () => ++count],
  ]);
  const find = (serviceId: string, toolId: string) => {
    const tool = tools.get(`${serviceId}.${toolId}`);
    if (!tool) throw cyrnelError('tool_not_found', `tool ${serviceId}.${toolId} not found`);
    return tool;
  };
  return {
    invoke: async ({ serviceId, toolId, parameters }) => find(serviceId, toolId)(parameters),
    discoverServices: async () => [{ id: 'math', name: 'math', description: '', toolCount: tools.size }],
    discoverTools: async () => [],
    describeTool: async (serviceId, toolId) => {
      find(serviceId, toolId);
      return { serviceId, toolId, name: toolId, description: '', inputSchema: {}, outputSchema: {} };
    },
  };
}

/** Test scaffolding: an environment that reports running and then ignores everything. */
const neverReturns: EnvironmentModule = {
  async setup() {},
  async teardown() {},
  execute: ({ eid }) => {
    bindingsOf.get(neverReturns)?.setState(eid, 'running');
    return new Promise(() => {});
  },
  async kill() {},
  generateDocs: async () => '',
  generateToolDocs: async () => '',
};
/** Test scaffolding: an environment that reports queued, then never starts anything. */
const staysQueued: EnvironmentModule = {
  async setup() {},
  async teardown() {},
  execute: ({ eid }) => {
    bindingsOf.get(staysQueued)?.setState(eid, 'queued');
    return new Promise(() => {});
  },
  async kill() {},
  generateDocs: async () => '',
  generateToolDocs: async () => '',
};
const bindingsOf = new Map<EnvironmentModule, ProcessManager['bindings']>();

interface StartOptions {
  readonly environment?: EnvironmentModule;
  readonly poolSize?: number;
  /** Executions one sandbox child may host while they all wait (the environment's default when absent). */
  readonly executionsPerChild?: number;
  readonly limits?: Partial<ProcessLimits>;
}

interface Started {
  readonly manager: ProcessManager;
  readonly db: Kysely<Database>;
  readonly leases: () => number;
}

async function start(database: ProcessTestDatabase, options: StartOptions = {}): Promise<Started> {
  const db = await database.open();
  const environment = options.environment ?? createTypescriptEnvironment();
  let held = 0;
  const environments: EnvironmentProvider = {
    active: () => environment,
    lease: () => {
      held++;
      return { moduleId: 'test', environment, release: () => void held-- };
    },
  };
  const manager = createProcessManager({
    storage: createProcessStore(db),
    environments,
    tools: mapTools(),
    logger,
    limits: { killGraceMs: 100, ...options.limits },
  });
  bindingsOf.set(environment, manager.bindings);
  await environment.setup({
    config: {
      poolSize: options.poolSize ?? 2,
      ...(options.executionsPerChild === undefined ? {} : { executionsPerChild: options.executionsPerChild }),
    },
    secrets: {},
    logger,
    bindings: manager.bindings,
  } as never);
  await manager.recover();
  cleanups.push(async () => {
    await manager.close({ graceMs: 0 });
    await environment.teardown();
  });
  return { manager, db, leases: () => held };
}

async function setup(options: StartOptions = {}) {
  const database = createProcessTestDatabase();
  cleanups.push(() => database.dispose());
  return { database, ...(await start(database, options)) };
}

describe('processes with typescript-ivm and SQLite', () => {
  it('runs the full lifecycle and persists the results and tool calls', async () => {
    const { manager, leases } = await setup();
    const { api } = manager;
    const { id, state } = await api.create({
      ref: 'lifecycle',
      code: `
        const doubled = await cyrnel.services.math.tools.double.invoke({ n: 21 });
        console.log('double is', doubled.value);
        console.error('to stderr');
        cyrnel.output({ value: doubled.value });
        const services = await cyrnel.discover.services({});
        const described = await cyrnel.discover.tool('math', 'double');
        let missing = 0;
        try { await cyrnel.discover.tool('math', 'nope'); } catch (error) { missing = error.status; }
        cyrnel.output({ done: true, services: services.map((s) => s.id), described: described.toolId, missing });
      `,
    });
    expect(state).toBe('queued');
    const result = await api.wait(id);
    expect(result).toMatchObject({
      state: 'idle',
      exitState: 'success',
      error: null,
      output: { value: 42, done: true, services: ['math'], described: 'double', missing: 404 },
      stdout: 'double is 42\n',
      stderr: 'to stderr\n',
    });
    expect(await api.get(id)).toMatchObject({ ref: 'lifecycle', exitState: 'success' });
    expect(await api.calls(id)).toMatchObject([{ serviceId: 'math', toolId: 'double', ok: true }]);
    expect(leases()).toBe(0);
  });

  it('records failed, timeout and canceled', async () => {
    const { manager } = await setup({ poolSize: 1 });
    const { api } = manager;
    const failed = await api.wait((await api.create({ code: 'throw new Error("boom")' })).id);
    expect(failed).toMatchObject({ exitState: 'failed', error: expect.stringContaining('boom') });
    const timedOut = await api.wait((await api.create({ code: 'while (true) {}', timeoutMs: 200 })).id);
    expect(timedOut.exitState).toBe('timeout');
    const running = await api.create({ code: WAITS, timeoutMs: null });
    const queued = await api.create({ code: 'console.log("never")' });
    await new Promise<void>((resolve) => {
      api.subscribe(running.id, (event) => {
        if (event.type === 'state' && event.data.state === 'running') resolve();
      });
    });
    expect(await api.kill(queued.id)).toMatchObject({
      state: 'idle',
      exitState: 'canceled',
      error: KILLED_ERROR,
    });
    await expect(api.kill(queued.id)).rejects.toMatchObject({ code: 'conflict' });
    await api.kill(running.id);
    expect(await api.kill(running.id)).toMatchObject({ state: 'terminating' });
    expect(await api.wait(running.id)).toMatchObject({ state: 'idle', exitState: 'canceled' });
    expect((await api.wait(queued.id)).stdout).toBe('');
  });

  it('times out an execution whose environment never returns', async () => {
    const { manager, leases } = await setup({ environment: neverReturns });
    const { id } = await manager.api.create({ code: 'x', timeoutMs: 50 });
    expect(await manager.api.wait(id)).toMatchObject({
      exitState: 'timeout',
      error: 'timed out after 50 ms',
    });
    expect(leases()).toBe(0);
  });

  it('re-runs with force only, clearing the previous results', async () => {
    const { manager } = await setup();
    const { api } = manager;
    const { id } = await api.create({
      code: 'cyrnel.output({ n: await cyrnel.services.math.tools.count.invoke({}) })',
    });
    expect((await api.wait(id)).output).toEqual({ n: 1 });
    await expect(api.run(id)).rejects.toMatchObject({ code: 'conflict' });
    await api.run(id, { force: true });
    expect((await api.wait(id)).output).toEqual({ n: 2 });
    expect(await api.calls(id)).toHaveLength(1);
    await api.delete(id);
    await expect(api.get(id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('filters and paginates newest first', async () => {
    const { manager } = await setup();
    const { api } = manager;
    const ids: number[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await api.create({ code: 'x', ref: `r${i % 2}`, autorun: false })).id);
    const page = await api.list({ limit: 3, ref: 'r0' });
    expect(page.items.map((p) => p.id)).toEqual([ids[4], ids[2], ids[0]]);
    expect(page.hasMore).toBe(false);
    const first = await api.list({ limit: 2, state: 'idle' });
    const second = await api.list({ limit: 2, state: 'idle', cursor: first.nextCursor as string });
    expect([...first.items, ...second.items].map((p) => p.id)).toEqual([ids[4], ids[3], ids[2], ids[1]]);
  });

  it('records a process left running by a stopped host as failed on restart', async () => {
    const { database, db } = await setup({ environment: neverReturns });
    const at = new Date().toISOString();
    const row = await db
      .insertInto('processes')
      .values({
        code: 'x',
        ref: null,
        state: 'running',
        timeout_ms: null,
        env_config: '{}',
        output: '{}',
        stdout: '',
        stderr: '',
        created_at: at,
        updated_at: at,
        started_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const restarted = await start(database, { environment: neverReturns });
    expect(await restarted.manager.api.get(row.id)).toMatchObject({
      state: 'idle',
      exitState: 'failed',
      error: INTERRUPTED_ERROR,
    });
  });

  it('runs two hundred concurrent processes through a pool of two', async () => {
    const { manager, leases, db } = await setup({ poolSize: 2 });
    const { api } = manager;
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        api.create({
          code: `const r = await cyrnel.services.math.tools.double.invoke({ n: ${i} }); console.log('p${i}'); cyrnel.output({ i: ${i}, double: r.value });`,
        }),
      ),
    );
    const results = await Promise.all(created.map(({ id }) => api.wait(id)));
    results.forEach((result, i) => {
      expect(result).toMatchObject({ exitState: 'success', stdout: `p${i}\n`, output: { i, double: i * 2 } });
    });
    // Every page of the list, then every row as SQLite holds it: nothing lost, every result right.
    const listed: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.list({ exitState: 'success', limit: 100, ...(cursor ? { cursor } : {}) });
      listed.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const ids = created.map(({ id }) => id);
    expect(listed).toEqual([...ids].sort((a, b) => b - a));
    const rows = await db
      .selectFrom('processes')
      .select([
        'id',
        'state',
        'exit_state',
        'error',
        'output',
        'stdout',
        'stderr',
        'started_at',
        'completed_at',
      ])
      .orderBy('id')
      .execute();
    expect(rows).toHaveLength(200);
    rows.forEach((row, i) => {
      expect(row).toMatchObject({
        id: ids[i],
        state: 'idle',
        exit_state: 'success',
        error: null,
        stderr: '',
      });
      expect(row.stdout).toBe(`p${i}\n`);
      expect(JSON.parse(row.output)).toEqual({ i, double: i * 2 });
      expect(row.started_at).not.toBeNull();
      expect(row.completed_at).not.toBeNull();
    });
    const calls = await db.selectFrom('process_tool_calls').selectAll().execute();
    expect(calls).toHaveLength(200);
    expect(leases()).toBe(0);
  });

  it('persists the running state while the process runs', async () => {
    const { manager, db } = await setup();
    const { api } = manager;
    const { id } = await api.create({ code: WAITS, timeoutMs: null });
    const stateOf = async () =>
      await db
        .selectFrom('processes')
        .select(['state', 'started_at'])
        .where('id', '=', id)
        .executeTakeFirst();
    await vi.waitFor(async () => expect((await stateOf())?.state).toBe('running'));
    expect((await stateOf())?.started_at).not.toBeNull();
    await api.kill(id);
    await api.wait(id);
    expect(await stateOf()).toMatchObject({ state: 'idle' });
  });

  it('records what a shutdown interrupts as failed in the database', async () => {
    const { manager, db } = await setup({ poolSize: 1 });
    const { api } = manager;
    const running = await api.create({ code: WAITS, timeoutMs: null });
    const queued = await api.create({ code: 'console.log("never")' });
    await new Promise<void>((resolve) => {
      api.subscribe(running.id, (event) => {
        if (event.type === 'state' && event.data.state === 'running') resolve();
      });
    });
    await manager.close({ graceMs: 0 });
    const rows = await db
      .selectFrom('processes')
      .select(['id', 'state', 'exit_state', 'error'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: running.id, state: 'idle', exit_state: 'failed', error: SHUTDOWN_ERROR },
      { id: queued.id, state: 'idle', exit_state: 'failed', error: SHUTDOWN_ERROR },
    ]);
  });

  it('ends a run the environment keeps queued and never starts', async () => {
    const { manager, db, leases } = await setup({ environment: staysQueued, limits: { queueStallMs: 50 } });
    const { id } = await manager.api.create({ code: 'x', timeoutMs: 50 });
    const result = await manager.api.wait(id);
    expect(result).toMatchObject({ state: 'idle', exitState: 'timeout', startedAt: null });
    expect(result.error).toMatch(/queued: the environment ran nothing for 50 ms/);
    expect(
      await db
        .selectFrom('processes')
        .select(['state', 'exit_state', 'started_at'])
        .where('id', '=', id)
        .executeTakeFirst(),
    ).toEqual({ state: 'idle', exit_state: 'timeout', started_at: null });
    expect(leases()).toBe(0);
  });

  it('bounds a wait from the start of the run, so a burst through a pool of one all succeed', async () => {
    // One child hosting one execution at a time: waiting runs would otherwise share it.
    const { manager } = await setup({ poolSize: 1, executionsPerChild: 1 });
    const { api } = manager;
    // Six runs of ~1 s through one slot: the last waits ~5 s queued, beyond its 4 s timeout. Each
    // run's own time (a fresh child, 1 s) stays well within it even on a loaded machine.
    const created = [];
    for (let i = 0; i < 6; i++) {
      created.push(
        await api.create({
          code: `await new Promise((resolve) => setTimeout(resolve, 1000)); cyrnel.output({ i: ${i} });`,
          timeoutMs: 4000,
        }),
      );
    }
    const last = created.at(-1)?.id as number;
    // A bound of timeout plus margin from creation (what wait:true used) gives up on it while queued.
    await expect(api.wait(last, { timeoutMs: 4100 })).rejects.toMatchObject({
      code: 'timeout',
      details: { processId: last },
    });
    const results = await Promise.all(created.map(({ id }) => api.wait(id, { marginMs: 100 })));
    expect(results.map((result) => [result.exitState, result.output])).toEqual(
      created.map((_, i) => ['success', { i }]),
    );
  });
});
