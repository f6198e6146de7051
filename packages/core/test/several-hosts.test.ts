import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CyrnelHost,
  createHost,
  createLocalSignals,
  type HostSignals,
  INTERRUPTED_ERROR,
} from '../src/index';
import { gatewayOf } from './support/gateway';
import { createHarnessStorage, type HarnessStorage } from './support/harness';
import { type AdapterProbe, createProbe, createTestAdapter, definition } from './support/test-adapter';
import {
  createEnvironmentProbe,
  createTestEnvironment,
  type EnvironmentProbe,
} from './support/test-environment';

// Several hosts share one storage (PostgreSQL in production: `@cyrnel/store` tests them there,
// with real claims and LISTEN/NOTIFY). Here they share core's memory storages and in-process
// signals, which show the hosts' own logic: following catalog and module changes, leaving other
// hosts' runs alone.
const SECRETS_KEY = randomBytes(32);

/** Storages and signals that the hosts of one test share. */
interface Shared extends HarnessStorage {
  readonly signals: HostSignals;
}

interface Started {
  readonly host: CyrnelHost;
  readonly adapter: AdapterProbe;
  readonly environment: EnvironmentProbe;
}

const LEASE_MS = 1_500;
const hosts: CyrnelHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0).reverse()) await host.close({ graceMs: 0 });
});

function shared(): Shared {
  return { ...createHarnessStorage(), signals: createLocalSignals() };
}

async function startHost(storage: Shared, id: string): Promise<Started> {
  const adapter = createProbe();
  const environment = createEnvironmentProbe();
  const host = await createHost({
    storage,
    builtins: [createTestAdapter('test', adapter), createTestEnvironment('env', environment)],
    secretsKey: SECRETS_KEY,
    policies: { default: { default: 'allow', byAnnotation: {} } },
    // The backstops are slow: the signals must carry these tests. A beat every 100 ms on a lease of
    // 1.5 s: a loaded machine that delays a beat by a second must not make a live host look silent.
    host: { id, heartbeatMs: 100, leaseMs: LEASE_MS, catalogPollMs: 20_000, queuePollMs: 20_000 },
  });
  hosts.push(host);
  return { host, adapter, environment };
}

/** Waits for a signal's effect: well inside the polls' 20 s, so only a signal can meet it. */
async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - start;
}

/**
 * Hosts A and B on one storage, with service `memo` (tool `hello`, `config` if given) installed on A
 * and hydrated on B (within 5 s: by A's signal, not a poll).
 */
async function twoHostsWithMemo(config?: Record<string, unknown>): Promise<{ a: Started; b: Started }> {
  const storage = shared();
  const a = await startHost(storage, 'host-a');
  const b = await startHost(storage, 'host-b');
  await a.host.services.install({
    id: 'memo',
    adapter: 'test',
    definition: definition({ tools: ['hello'] }),
    ...(config ? { config } : {}),
    enabled: true,
  });
  await until(() => b.adapter.states.has('memo'));
  return { a, b };
}

describe('several hosts on one shared storage', () => {
  it('takes a catalog change made on one host into account on the others', async () => {
    // Enabled on A: hydrated on B, and callable there.
    const { a, b } = await twoHostsWithMemo({ region: 'us' });
    expect(a.adapter.states.get('memo')?.config).toEqual({ region: 'us' });
    expect(
      await gatewayOf(b.host).tools.invoke({ serviceId: 'memo', toolId: 'hello', parameters: {} }),
    ).toEqual({
      echo: {},
      route: '/hello',
    });
    // New config on A: B hydrates the service again with it.
    await a.host.services.patchConfig('memo', [{ op: 'replace', path: '/region', value: 'eu' }]);
    await until(() => b.adapter.states.get('memo')?.config.region === 'eu');
    // Disabled on A: B drops it and refuses calls.
    await a.host.services.setEnabled('memo', false);
    await until(() => !b.adapter.states.has('memo'));
    await expect(
      gatewayOf(b.host).tools.invoke({ serviceId: 'memo', toolId: 'hello', parameters: {} }),
    ).rejects.toMatchObject({ code: 'conflict', status: 409 });
    // Deleted on A: gone on B too.
    await a.host.services.setEnabled('memo', true);
    await until(() => b.adapter.states.has('memo'));
    await a.host.services.delete('memo');
    await until(() => !b.adapter.states.has('memo'));
    await expect(b.host.services.get('memo')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('hydrates a service another host enabled, on the first call for it here, before hearing of it', async () => {
    const storage = shared();
    const a = await startHost(storage, 'host-a');
    // B hears none of A's signals: only its slow poll would bring A's writes.
    const b = await startHost({ ...storage, signals: createLocalSignals() }, 'host-b');
    const call = () => gatewayOf(b.host).tools.invoke({ serviceId: 'memo', toolId: 'hello', parameters: {} });
    await a.host.services.install({
      id: 'memo',
      adapter: 'test',
      definition: definition({ tools: ['hello'] }),
      enabled: true,
    });
    expect(b.adapter.states.has('memo')).toBe(false);
    expect(await call()).toEqual({ echo: {}, route: '/hello' });
    expect(b.adapter.states.has('memo')).toBe(true);
    // A hydration that fails here is a 503 naming the service, never the adapter's bare error.
    await a.host.services.install({
      id: 'other',
      adapter: 'test',
      definition: definition({ tools: ['hello'] }),
      enabled: true,
    });
    b.adapter.failHydrate = 'no room for it';
    await expect(
      gatewayOf(b.host).tools.invoke({ serviceId: 'other', toolId: 'hello', parameters: {} }),
    ).rejects.toMatchObject({
      code: 'unavailable',
      status: 503,
      message: expect.stringContaining('service other could not be activated'),
    });
  });

  it('applies a policy set on another host as soon as its signal is heard, not at the next poll', async () => {
    const { a, b } = await twoHostsWithMemo();
    const code = `calls:${JSON.stringify([{ method: 'invokeTool', args: [{ serviceId: 'memo', toolId: 'hello', parameters: {} }] }])}`;
    const firstCall = async () => {
      const { id } = await b.host.processes.create({ code });
      await b.host.processes.wait(id);
      return (await b.host.processes.calls(id))[0];
    };
    // B decided (and keeps) memo's rules: allowed.
    expect(await firstCall()).toMatchObject({ ok: true, decision: { outcome: 'allowed' } });
    await a.host.policies.set('memo', { tools: { hello: 'block' } });
    // A runs nothing more: every run below is B's. Its backstop poll comes only after 10 s.
    await a.host.close({ graceMs: 0 });
    hosts.splice(hosts.indexOf(a.host), 1);
    expect(await until(async () => (await firstCall())?.errorReason === 'tool_blocked', 3_000)).toBeLessThan(
      3_000,
    );
  });

  it('follows module changes made on another host: disable, enable, config', async () => {
    const { a, b } = await twoHostsWithMemo();
    // Disabled on A: B tears its adapter down (its services are dropped).
    await a.host.modules.setEnabled('test', false);
    expect(await until(() => b.adapter.calls.includes('teardown'))).toBeLessThan(2_000);
    expect((await b.host.modules.get('test')).status).toBe('inactive');
    // Enabled again on B: A sets it up again and hydrates its services.
    a.adapter.calls.length = 0;
    await b.host.modules.setEnabled('test', true);
    await until(() => a.adapter.calls.includes('hydrate:memo'));
    expect(a.adapter.calls).toEqual(['setup', 'hydrate:memo']);
    // New module config on A: B sets the module up again with it.
    b.adapter.calls.length = 0;
    await a.host.modules.patchConfig('test', [{ op: 'replace', path: '/region', value: 'us' }]);
    await until(() => b.adapter.calls.includes('hydrate:memo'));
    expect(b.adapter.calls).toEqual(['teardown', 'setup', 'hydrate:memo']);
    expect(await b.host.modules.getConfig('test')).toEqual({ region: 'us' });
  });

  it("never fails another live host's runs when starting, and fails a silent host's", async () => {
    const storage = shared();
    const a = await startHost(storage, 'host-a');
    a.environment.hold = true;
    const { id } = await a.host.processes.create({ code: 'held', timeoutMs: null });
    // Running as the shared storage says it (A's own view says it before its write lands).
    await until(async () => (await storage.processes.get(id))?.state === 'running');
    // A host that went silent (its heartbeat stopped long ago) left a run behind.
    await storage.processes.heartbeat('host-gone', '2020-01-01T00:00:00.000Z');
    const orphan = await storage.processes.insert({
      ref: null,
      keyId: null,
      code: 'left behind',
      state: 'queued',
      timeoutMs: null,
      envConfig: {},
      createdAt: new Date().toISOString(),
      ownerHost: 'host-gone',
    });
    const b = await startHost(storage, 'host-b');
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
    a.environment.release.get(id)?.();
    expect(await a.host.processes.wait(id)).toMatchObject({ exitState: 'success', output: { ranOn: 'env' } });
  });
});
