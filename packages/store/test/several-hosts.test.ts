import { randomBytes } from 'node:crypto';
import { type CyrnelHost, createHost, INTERRUPTED_ERROR } from '@cyrnel/core';
import { typescriptIvmModule } from '@cyrnel/env-typescript-ivm';
import type { AdapterModule, BuiltinModule, ServiceState } from '@cyrnel/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../src/index';
import { openPostgresStore } from '../src/postgres/index';
import { POSTGRES_TESTS, useFileDatabase } from './support/postgres';

const database = useFileDatabase();
const SECRETS_KEY = randomBytes(32);
const WAITS = 'await new Promise((resolve) => setTimeout(resolve, 60_000))';

/** What one host's instance of the test adapter was told: the services it holds now. */
type Held = Map<string, ServiceState>;

/** A tiny adapter whose instances report what they hold, per host. */
function recordingAdapter(held: Held): BuiltinModule<AdapterModule> {
  return {
    manifest: { id: 'notes', name: 'Notes', description: 'test adapter', type: 'adapter', version: '1.0.0' },
    configSchema: { type: 'object' },
    secretsSchema: { type: 'object' },
    instantiate: () => ({
      async setup() {},
      async teardown() {
        held.clear();
      },
      async generateDefinition() {
        return {
          name: 'Notes',
          description: '',
          configSchema: { type: 'object', properties: { greeting: { type: 'string' } } },
          secretsSchema: { type: 'object' },
          adapterDomain: {},
          tools: [
            {
              id: 'hello',
              name: 'hello',
              description: 'Says hello',
              inputSchema: { type: 'object' },
              outputSchema: { type: 'object' },
              adapterDomain: {},
            },
          ],
        };
      },
      async hydrateService(state) {
        held.set(state.id, state);
      },
      async dehydrateService(id) {
        held.delete(id);
      },
      async invoke({ serviceId }) {
        return { greeting: held.get(serviceId)?.config.greeting ?? null };
      },
    }),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh schema shared by the hosts of one test, dropped at the end. */
function sharedSchema(): string {
  const schema = `cyrnel_h_${randomBytes(6).toString('hex')}`;
  cleanups.push(() => database.dropSchema(schema));
  return schema;
}

/** The hosts' lease unless a test names another. */
const LEASE_MS = 1_500;

async function startHost(
  schema: string,
  id: string,
  held: Held = new Map(),
  options: { slots?: number; withoutNotes?: boolean; heartbeatMs?: number; leaseMs?: number } = {},
): Promise<{ host: CyrnelHost; store: Store; held: Held }> {
  const store = await openPostgresStore({ url: database.url(), schema, maxConnections: 4 });
  const host = await createHost({
    storage: store,
    builtins: options.withoutNotes ? [typescriptIvmModule] : [typescriptIvmModule, recordingAdapter(held)],
    secretsKey: SECRETS_KEY,
    // About several hosts, not policies: every call is allowed.
    policies: { default: { default: 'allow', byAnnotation: {} } },
    host: {
      id,
      // A lease a busy machine does not miss (with 300 ms a loaded CI machine let host A's lapse
      // while it ran a 300 ms program, and its end was never written), still short enough for the
      // tests that wait past it.
      heartbeatMs: options.heartbeatMs ?? 100,
      leaseMs: options.leaseMs ?? LEASE_MS,
      // The backstops are slow: signals (LISTEN/NOTIFY) must carry these tests.
      catalogPollMs: 5_000,
      queuePollMs: 5_000,
      ...(options.slots === undefined ? {} : { slots: options.slots }),
    },
  });
  cleanups.push(async () => {
    await host.close({ graceMs: 0 });
    await store.close();
  });
  return { host, store, held };
}

/** Install service `memo` of the test adapter through `host`, enabled, greeting `greeting`. */
async function installMemo(host: CyrnelHost): Promise<void> {
  await host.services.install({
    id: 'memo',
    adapter: 'notes',
    definition: 'x',
    config: { greeting: 'hi' },
    enabled: true,
  });
}

async function until(check: () => boolean | Promise<boolean>, ms = 2_000): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - start;
}

describe.skipIf(!POSTGRES_TESTS.enabled)('several hosts on one PostgreSQL database', () => {
  it("never fails another live host's runs when starting, and fails a silent host's within the lease", async () => {
    const schema = sharedSchema();
    const a = await startHost(schema, 'host-a');
    const { id } = await a.host.processes.create({ code: WAITS, timeoutMs: null });
    // Running as the database says it (A's own view says it before its write lands).
    await until(async () => (await a.store.processes.get(id))?.state === 'running');
    // A host that went silent (its heartbeat stopped long ago) left a run behind.
    await a.store.processes.heartbeat('host-gone', '2020-01-01T00:00:00.000Z');
    const orphan = await a.store.processes.insert({
      ref: null,
      keyId: null,
      code: WAITS,
      state: 'queued',
      timeoutMs: null,
      envConfig: {},
      createdAt: new Date().toISOString(),
      ownerHost: 'host-gone',
    });
    const b = await startHost(schema, 'host-b');
    // B started: A's run is untouched; the silent host's run is failed by B.
    expect((await b.host.processes.get(id)).state).toBe('running');
    expect(await b.host.processes.get(orphan)).toMatchObject({
      state: 'idle',
      exitState: 'failed',
      error: INTERRUPTED_ERROR,
      errorReason: 'process_interrupted',
    });
    // Long past the lease, A still beats: its run is still running.
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS));
    expect((await b.host.processes.get(id)).state).toBe('running');
    await a.host.processes.kill(id);
  });

  it('waits for, follows and kills a process from another host than the one that runs it', async () => {
    const schema = sharedSchema();
    const a = await startHost(schema, 'host-a');
    const b = await startHost(schema, 'host-b');
    // wait on B for a run of A: answered once A wrote its end. (The waits' bounds only catch a
    // hang: a cold sandbox on a loaded machine may take seconds to start.)
    const short = await a.host.processes.create({
      code: 'await new Promise((resolve) => setTimeout(resolve, 300)); cyrnel.output({ done: true })',
    });
    expect(await b.host.processes.wait(short.id, { timeoutMs: 60_000 })).toMatchObject({
      state: 'idle',
      exitState: 'success',
      output: { done: true },
    });
    // Events on B: the states, then the results and the exit once A is done.
    const followed = await a.host.processes.create({
      code: 'console.log("hello"); await new Promise((resolve) => setTimeout(resolve, 300)); cyrnel.output({ n: 1 })',
    });
    await until(async () => (await b.host.processes.get(followed.id)).state !== 'queued');
    const events: string[] = [];
    const exited = new Promise<void>((resolve) => {
      void b.host.processes.subscribe(followed.id, (event) => {
        events.push(event.type === 'state' ? `state:${event.data.state}` : event.type);
        if (event.type === 'exit') resolve();
      });
    });
    await exited;
    expect(events[0]).toBe('state:running');
    // Streamed by A (its run's events so far, then each new one), ending with the exit.
    expect(events.filter((event) => event === 'stdout' || event === 'output')).toEqual(['stdout', 'output']);
    expect(events.at(-1)).toBe('exit');
    // Kill on B: A stops its run.
    const hanging = await a.host.processes.create({ code: WAITS, timeoutMs: null });
    await until(async () => (await a.host.processes.get(hanging.id)).state === 'running');
    await a.host.processes.list({});
    await b.host.processes.kill(hanging.id);
    expect(await a.host.processes.wait(hanging.id, { timeoutMs: 60_000 })).toMatchObject({
      exitState: 'canceled',
      errorReason: 'process_killed',
    });
  });

  it('streams stdout, stderr and output of a run to a host that follows it, live, each once', async () => {
    const schema = sharedSchema();
    const a = await startHost(schema, 'host-a');
    const b = await startHost(schema, 'host-b');
    const big = 'x'.repeat(20_000);
    const run = await a.host.processes.create({
      code: `for (let i = 0; i < 20; i++) {
        console.log('tick ' + i);
        if (i === 10) console.error('é'.repeat(5000));
        if (i === 12) for (let j = 0; j < 3000; j++) console.log('line ' + j);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      cyrnel.output({ big: '${big}' });
      console.log('${big}');`,
    });
    await until(async () => (await a.host.processes.get(run.id)).state === 'running');
    await new Promise((resolve) => setTimeout(resolve, 150));
    let stdout = '';
    let stderr = '';
    let output: Record<string, unknown> = {};
    let stdoutWhileRunning = false;
    const order: string[] = [];
    const exited = new Promise<void>((resolve) => {
      void b.host.processes.subscribe(run.id, (event) => {
        order.push(event.type);
        if (event.type === 'stdout') {
          stdout += event.data.text;
          // A chunk that reaches B before A's run ended arrived live, not from the store.
          if (!event.data.text.includes('x')) stdoutWhileRunning ||= !finished;
        }
        if (event.type === 'stderr') stderr += event.data.text;
        if (event.type === 'output') output = { ...output, ...event.data.patch };
        if (event.type === 'exit') resolve();
      });
    });
    let finished = false;
    void a.host.processes.wait(run.id).then(() => {
      finished = true;
    });
    await exited;
    const result = await a.host.processes.wait(run.id);
    expect(stdoutWhileRunning).toBe(true);
    expect(stdout).toBe(result.stdout);
    expect(stderr).toBe(result.stderr);
    expect(output).toEqual({ big });
    expect(order.at(-1)).toBe('exit');
    expect(order.indexOf('output')).toBeLessThan(order.indexOf('exit'));
  });

  it('replays a run to at most 16 followers; the others get its stored results at the end', async () => {
    const schema = sharedSchema();
    // A lease a busy machine cannot miss: a host that looks gone has its runs ended as interrupted.
    const a = await startHost(schema, 'host-a', new Map(), { leaseMs: 10_000 });
    const b = await startHost(schema, 'host-b', new Map(), { leaseMs: 10_000 });
    const replays = new Set<string>();
    b.store.signals?.subscribe('process', (payload) => {
      const message =
        payload === null ? undefined : (JSON.parse(payload) as { replay?: string; upTo?: number });
      if (message?.replay !== undefined && message.upTo !== undefined) replays.add(message.replay);
    });
    const run = await a.host.processes.create({
      code: "console.log('a'); await new Promise((resolve) => setTimeout(resolve, 1_500)); console.log('b');",
    });
    await until(async () => (await a.host.processes.get(run.id)).state === 'running');
    const outputs = await Promise.all(
      Array.from(
        { length: 24 },
        () =>
          new Promise<string>((resolve) => {
            let stdout = '';
            void b.host.processes.subscribe(run.id, (event) => {
              if (event.type === 'stdout') stdout += event.data.text;
              if (event.type === 'exit') resolve(stdout);
            });
          }),
      ),
    );
    expect(outputs).toEqual(Array(24).fill('a\nb\n'));
    expect(replays.size).toBe(16);
  });

  it('follows a run of a host whose heartbeat looks stale instead of waiting for this host to run it', async () => {
    const schema = sharedSchema();
    // Slow heartbeats: neither host beats again, nor sweeps the other's runs, while the test looks.
    const a = await startHost(schema, 'host-a', new Map(), { heartbeatMs: 60_000 });
    const b = await startHost(schema, 'host-b', new Map(), { heartbeatMs: 60_000 });
    const run = await a.host.processes.create({ code: `console.log('a'); ${WAITS}`, timeoutMs: null });
    await new Promise<void>((resolve) => {
      void a.host.processes.subscribe(run.id, (event) => {
        if (event.type === 'stdout') resolve();
      });
    });
    // Host A misses its lease, as a busy host does for a moment: its run is no one's to take here.
    await b.store.processes.heartbeat('host-a', '2020-01-01T00:00:00.000Z');
    const seen: string[] = [];
    const exit = await new Promise<unknown>((resolve) => {
      void b.host.processes.subscribe(run.id, (event) => {
        if (event.type === 'stdout') seen.push(event.data.text);
        if (event.type === 'exit') resolve(event.data);
      });
    });
    // Streamed from A while it answers, then ended as the lease says: its owner is gone.
    expect(seen.join('')).toBe('a\n');
    expect(exit).toMatchObject({ exitState: 'failed', errorReason: 'process_interrupted' });
  });

  it('takes a catalog change made on one host into account on the others within 2 s', async () => {
    const schema = sharedSchema();
    const a = await startHost(schema, 'host-a');
    const b = await startHost(schema, 'host-b');
    await installMemo(a.host);
    expect(a.held.get('memo')?.config).toEqual({ greeting: 'hi' });
    // Enabled on A: hydrated on B, and callable there.
    const enabled = await until(() => b.held.has('memo'));
    expect(enabled).toBeLessThan(2_000);
    const call = await b.host.processes.create({
      code: 'cyrnel.output(await cyrnel.services.memo.tools.hello.invoke({}))',
    });
    expect(await b.host.processes.wait(call.id)).toMatchObject({
      exitState: 'success',
      output: { greeting: 'hi' },
    });
    // New config on A: B hydrates the service again with it.
    await a.host.services.patchConfig('memo', [{ op: 'replace', path: '/greeting', value: 'hello' }]);
    await until(() => b.held.get('memo')?.config.greeting === 'hello');
    // Disabled on A: B drops it and refuses calls.
    await a.host.services.setEnabled('memo', false);
    await until(() => !b.held.has('memo'));
    const refused = await b.host.processes.create({
      code: 'try { await cyrnel.services.memo.tools.hello.invoke({}) } catch (e) { cyrnel.output({ reason: e.reason }) }',
    });
    expect(await b.host.processes.wait(refused.id)).toMatchObject({ output: { reason: 'service_disabled' } });
    // Deleted on A: gone on B too.
    await a.host.services.setEnabled('memo', true);
    await until(() => b.held.has('memo'));
    await a.host.services.delete('memo');
    await until(() => !b.held.has('memo'));
  });

  it('shares one queue: a busy host leaves work to the others, each process runs once, a kill reaches work no host took', async () => {
    const schema = sharedSchema();
    const a = await startHost(schema, 'host-a', new Map(), { slots: 1 });
    const b = await startHost(schema, 'host-b', new Map(), { slots: 2 });
    const code = 'await new Promise((resolve) => setTimeout(resolve, 150)); cyrnel.output({ ok: true })';
    const created = [];
    for (let i = 0; i < 6; i++) created.push(await a.host.processes.create({ code }));
    // A holds one run: the rest wait in the shared queue, without a host.
    expect(created[0]?.hostId).toBe('host-a');
    expect(created.slice(1).map((record) => record.hostId)).toEqual([null, null, null, null, null]);
    const results = await Promise.all(
      created.map((record) => a.host.processes.wait(record.id, { timeoutMs: 20_000 })),
    );
    expect(results.map((result) => result.exitState)).toEqual(Array(6).fill('success'));
    const ran = new Set(results.map((result) => result.hostId));
    expect(ran).toEqual(new Set(['host-a', 'host-b']));
    // Every slot busy: the next process waits for a host, and a kill records it without one.
    const hanging = [
      await a.host.processes.create({ code: WAITS, timeoutMs: null }),
      await b.host.processes.create({ code: WAITS, timeoutMs: null }),
      await b.host.processes.create({ code: WAITS, timeoutMs: null }),
    ];
    const waiting = await a.host.processes.create({ code: WAITS, timeoutMs: null });
    expect(waiting.hostId).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await b.host.processes.get(waiting.id)).toMatchObject({ state: 'queued', hostId: null });
    const events: string[] = [];
    await b.host.processes.subscribe(waiting.id, (event) => events.push(event.type));
    expect(await b.host.processes.kill(waiting.id)).toMatchObject({ state: 'idle', exitState: 'canceled' });
    await until(() => events.includes('exit'));
    expect(await a.host.processes.wait(waiting.id)).toMatchObject({ exitState: 'canceled', hostId: null });
    for (const record of hanging) await a.host.processes.kill(record.id);
  });

  it('never gives a host work that needs a module only another host has, and says where a module is', async () => {
    const schema = sharedSchema();
    const a = await startHost(schema, 'host-a');
    const c = await startHost(schema, 'host-c', new Map(), { withoutNotes: true });
    await installMemo(a.host);
    // C has no `notes` code: its list says where the module is, not that it is missing.
    await until(async () => (await c.host.modules.get('notes')).status === 'active');
    expect((await c.host.modules.get('notes')).error).toContain('host-a');
    // Submitted to C, naming a service of `notes`: run by A.
    const calls = [];
    for (let i = 0; i < 4; i++)
      calls.push(
        await c.host.processes.create({
          code: 'cyrnel.output(await cyrnel.services.memo.tools.hello.invoke({}))',
        }),
      );
    for (const call of calls) {
      expect(call.hostId).toBeNull();
      expect(await c.host.processes.wait(call.id, { timeoutMs: 60_000 })).toMatchObject({
        exitState: 'success',
        hostId: 'host-a',
        output: { greeting: 'hi' },
      });
    }
    // Work that names no service of it runs where it was submitted.
    const plain = await c.host.processes.create({ code: 'cyrnel.output({ ok: 1 })' });
    expect(plain.hostId).toBe('host-c');
    // Changing the module from C is refused with where it is; once A is gone, it is missing.
    await expect(c.host.modules.getConfig('notes')).rejects.toMatchObject({ reason: 'module_missing' });
    await a.host.close({ graceMs: 0 });
    await until(async () => (await c.host.modules.get('notes')).status === 'missing', 3_000);
  });

  it('follows module changes made on another host: disable, enable, config', async () => {
    const schema = sharedSchema();
    const a = await startHost(schema, 'host-a');
    const b = await startHost(schema, 'host-b');
    await installMemo(a.host);
    await until(() => b.held.has('memo'));
    // Disabled on A: B tears its adapter down (its services are dropped) within 2 s.
    await a.host.modules.setEnabled('notes', false);
    expect(await until(() => !b.held.has('memo'))).toBeLessThan(2_000);
    expect((await b.host.modules.get('notes')).status).toBe('inactive');
    // Enabled again on B: A sets it up again and hydrates its services.
    await b.host.modules.setEnabled('notes', true);
    expect(await until(() => a.held.has('memo'))).toBeLessThan(2_000);
    // New module config on A: B sets the module up again with it.
    const before = b.held.get('memo');
    await a.host.modules.patchConfig('notes', [{ op: 'add', path: '/mode', value: 'x' }]);
    await until(() => b.held.has('memo') && b.held.get('memo') !== before);
    expect((await b.host.modules.getConfig('notes')).mode).toBe('x');
  });
});
