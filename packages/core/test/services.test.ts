import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHost, isCyrnelError } from '../src/index';
import { gatewayOf } from './support/gateway';
import { createHarness, createHarnessStorage, type Harness } from './support/harness';
import { type AdapterProbe, createProbe, createTestAdapter, definition } from './support/test-adapter';
import { createEnvironmentProbe, createTestEnvironment } from './support/test-environment';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(probe: AdapterProbe, extra: Parameters<typeof createHarness>[0] = {}) {
  harness = await createHarness({ builtins: [createTestAdapter('test', probe)], ...extra });
  probe.calls.length = 0;
  return harness;
}

/** Whether the storage holds nothing of service `id`: no row, tool, config or secrets. */
async function nothingStored(h: Harness, id: string): Promise<boolean> {
  const { catalog } = h.storage;
  const owner = { kind: 'service', id } as const;
  return (
    (await catalog.getService(id)) === undefined &&
    (await catalog.listTools({ serviceId: id })).length === 0 &&
    (await catalog.getConfig(owner)) === undefined &&
    (await catalog.getSecrets(owner)) === undefined
  );
}

const twoTools = definition({ tools: ['listPets', 'getPet'] });

describe('services', () => {
  it('installs disabled by default, without any hydration', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    const service = await host.services.install({ id: 'pets', adapter: 'test', definition: twoTools });
    expect(service).toMatchObject({
      id: 'pets',
      adapter: 'test',
      enabled: false,
      toolCount: 2,
      source: null,
    });
    expect(service.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(probe.calls).toEqual(['generateDefinition']);
    expect((await host.tools.list({ serviceId: 'pets' })).items.map((tool) => tool.id)).toEqual([
      'getPet',
      'listPets',
    ]);
  });

  it('installs enabled with config defaults applied and hydrates once', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    const text = definition({
      tools: ['ping'],
      configSchema: { type: 'object', properties: { timeoutMs: { type: 'integer', default: 30000 } } },
    });
    const service = await host.services.install({
      id: 'svc',
      adapter: 'test',
      definition: text,
      enabled: true,
    });
    expect(service.enabled).toBe(true);
    expect(probe.calls).toEqual(['generateDefinition', 'hydrate:svc']);
    expect(probe.states.get('svc')).toMatchObject({
      id: 'svc',
      config: { timeoutMs: 30000 },
      secrets: {},
      adapterDomain: { kind: 'test' },
      tools: { ping: { adapterDomain: { route: '/ping' } } },
    });
    expect(await host.services.getConfig('svc')).toEqual({ timeoutMs: 30000 });
  });

  it('refuses invalid service and tool ids, unknown adapters and refused definitions', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    await expect(
      host.services.install({ id: 'delete', adapter: 'test', definition: twoTools }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('id'),
    });
    await expect(
      host.services.install({ id: 'ok', adapter: 'test', definition: definition({ tools: ['bad-id'] }) }),
    ).rejects.toMatchObject({ code: 'invalid_request', details: [{ path: '/tools/0/id' }] });
    await expect(
      host.services.install({ id: 'ok', adapter: 'nope', definition: twoTools }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'unknown adapter nope',
    });
    await expect(
      host.services.install({ id: 'ok', adapter: 'test', definition: '{not json' }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('refused the definition'),
    });
    await expect(
      host.services.install({ id: 'ok', adapter: 'test', definition: twoTools, enabled: 'yes' as never }),
    ).rejects.toMatchObject({ code: 'invalid_request', details: [{ path: 'enabled' }] });
    expect((await host.services.list()).items).toEqual([]);
  });

  it('refuses an enabled install whose config does not validate, storing nothing', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    const text = definition({
      tools: ['ping'],
      configSchema: { type: 'object', properties: { baseUrl: { type: 'string' } }, required: ['baseUrl'] },
    });
    await expect(
      host.services.install({ id: 'svc', adapter: 'test', definition: text, enabled: true }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('config'),
    });
    expect((await host.services.list()).items).toEqual([]);
    expect(probe.calls).toEqual(['generateDefinition']);
    const installed = await host.services.install({ id: 'svc', adapter: 'test', definition: text });
    expect(installed.enabled).toBe(false);
    await expect(host.services.setEnabled('svc', true)).rejects.toMatchObject({ code: 'invalid_request' });
    await host.services.patchConfig('svc', [{ op: 'add', path: '/baseUrl', value: 'https://x.test' }]);
    expect((await host.services.setEnabled('svc', true)).enabled).toBe(true);
  });

  it('enables with hydrate, disables with dehydrate, and rolls back a failed hydration (502)', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    await host.services.install({ id: 'pets', adapter: 'test', definition: twoTools });
    await host.services.setEnabled('pets', true);
    await host.services.setEnabled('pets', true);
    await host.services.setEnabled('pets', false);
    expect(probe.calls).toEqual(['generateDefinition', 'hydrate:pets', 'dehydrate:pets']);
    probe.failHydrate = 'upstream refused the credentials';
    const error = await host.services.setEnabled('pets', true).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_error', status: 502 });
    expect((error as Error).message).toContain('upstream refused the credentials');
    expect((await host.services.get('pets')).enabled).toBe(false);
  });

  it('updates: unchanged hash is a no-op; a change dehydrates, keeps tool flags, adds new tools enabled, disables', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    await host.services.install({ id: 'pets', adapter: 'test', definition: twoTools, enabled: true });
    await host.tools.setEnabled('pets', 'getPet', false);
    probe.calls.length = 0;
    const same = await host.services.update('pets', { definition: twoTools });
    expect(same.enabled).toBe(true);
    expect(probe.calls).toEqual([]);
    // By URL: the host downloads it, and the URL becomes the service's source.
    const served = definition({ tools: ['getPet', 'createPet'] });
    const server = createServer((_request, response) => response.end(served));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pets.json`;
    const updated = await host.services.update('pets', { url }).finally(() => server.close());
    expect(probe.calls).toEqual(['generateDefinition', 'dehydrate:pets']);
    expect(updated).toMatchObject({ enabled: false, toolCount: 2, source: url });
    const tools = (await host.tools.list({ serviceId: 'pets' })).items;
    expect(tools.map((tool) => [tool.id, tool.enabled])).toEqual([
      ['createPet', true],
      ['getPet', false],
    ]);
  });

  it('deletes with dehydrate and cascades to tools, config and secrets', async () => {
    const probe = createProbe();
    const h = await start(probe);
    await h.host.services.install({
      id: 'pets',
      adapter: 'test',
      definition: twoTools,
      config: { a: 1 },
      secrets: { token: 's3cret' },
      enabled: true,
    });
    expect(await nothingStored(h, 'pets')).toBe(false);
    await h.host.services.delete('pets');
    expect(probe.calls).toEqual(['generateDefinition', 'hydrate:pets', 'dehydrate:pets']);
    expect(await nothingStored(h, 'pets')).toBe(true);
    expect(await h.storage.catalog.listServices({})).toEqual([]);
    await expect(h.host.services.get('pets')).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.host.services.delete('pets')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('patches config with JSON Patch, validates with defaults, and re-hydrates an enabled service', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    const text = definition({
      tools: ['ping'],
      configSchema: {
        type: 'object',
        properties: { baseUrl: { type: 'string' }, retries: { type: 'integer', default: 3 } },
        additionalProperties: false,
      },
    });
    await host.services.install({ id: 'svc', adapter: 'test', definition: text, enabled: true });
    probe.calls.length = 0;
    const config = await host.services.patchConfig('svc', [
      { op: 'add', path: '/baseUrl', value: 'https://x.test' },
    ]);
    expect(config).toEqual({ baseUrl: 'https://x.test', retries: 3 });
    expect(probe.calls).toEqual(['hydrate:svc']);
    expect(probe.states.get('svc')?.config).toEqual({ baseUrl: 'https://x.test', retries: 3 });
    await expect(
      host.services.patchConfig('svc', [{ op: 'add', path: '/baseUrl', value: 42 }]),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: [expect.objectContaining({ path: '/baseUrl' })],
    });
    await expect(host.services.patchConfig('svc', [{ op: 'remove', path: '/nope' }])).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('operation 0'),
    });
    expect(await host.services.getConfig('svc')).toEqual({ baseUrl: 'https://x.test', retries: 3 });
  });

  it('stores only what differs from the defaults, so an update with new defaults reaches the config', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    const withDefaults = (baseUrl: string) =>
      definition({
        tools: ['ping'],
        configSchema: {
          type: 'object',
          properties: {
            baseUrl: { type: 'string', default: baseUrl },
            retries: { type: 'integer', default: 3 },
          },
        },
      });
    await host.services.install({ id: 'svc', adapter: 'test', definition: withDefaults('https://v1.test') });
    await host.services.patchConfig('svc', [{ op: 'replace', path: '/retries', value: 5 }]);
    const stored = () => harness?.storage.catalog.getConfig({ kind: 'service', id: 'svc' });
    expect(await stored()).toEqual({ retries: 5 });
    await host.services.update('svc', { definition: withDefaults('https://v2.test') });
    expect(await host.services.getConfig('svc')).toEqual({ baseUrl: 'https://v2.test', retries: 5 });
    // A value set back to its default follows later defaults again.
    await host.services.patchConfig('svc', [{ op: 'replace', path: '/retries', value: 3 }]);
    expect(await stored()).toEqual({});
  });

  it('restores the previous config when re-hydration fails', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    await host.services.install({
      id: 'svc',
      adapter: 'test',
      definition: twoTools,
      enabled: true,
      config: { a: 1 },
    });
    probe.failHydrate = 'bad config';
    await expect(
      host.services.patchConfig('svc', [{ op: 'replace', path: '/a', value: 2 }]),
    ).rejects.toMatchObject({
      code: 'upstream_error',
    });
    expect(await host.services.getConfig('svc')).toEqual({ a: 1 });
  });

  it('keeps two concurrent installs of one id consistent: one wins, one conflicts', async () => {
    const probe = createProbe();
    const h = await start(probe);
    const results = await Promise.allSettled([
      h.host.services.install({ id: 'pets', adapter: 'test', definition: twoTools }),
      h.host.services.install({ id: 'pets', adapter: 'test', definition: definition({ tools: ['other'] }) }),
    ]);
    const fulfilled = results.filter((result) => result.status === 'fulfilled');
    const rejected = results.filter(
      (result): result is PromiseRejectedResult => result.status === 'rejected',
    );
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason).toMatchObject({ code: 'conflict', reason: 'service_exists' });
    expect((await h.storage.catalog.listServices({})).map((row) => row.id)).toEqual(['pets']);
    expect((await h.storage.catalog.listTools({})).map((row) => `${row.serviceId}.${row.id}`)).toEqual([
      'pets.getPet',
      'pets.listPets',
    ]);
  });

  it('reports a duplicate id across hosts on one storage as a conflict from the storage', async () => {
    const probe = createProbe();
    const h = await start(probe);
    await h.host.services.install({ id: 'pets', adapter: 'test', definition: twoTools });
    const error = await h.storage.catalog
      .insertService({
        id: 'pets',
        adapter: 'test',
        enabled: false,
        name: 'x',
        description: '',
        hash: 'h',
        source: null,
        definition: '{}',
        configSchema: {},
        secretsSchema: {},
        adapterDomain: {},
        tools: [],
        config: {},
        secrets: null,
        createdAt: new Date().toISOString(),
      })
      .catch((e: unknown) => e);
    expect(isCyrnelError(error) && error.code).toBe('conflict');
  });

  it('lists services with filters and stable cursor pages', async () => {
    const probe = createProbe();
    const { host } = await start(probe);
    for (const id of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) {
      await host.services.install({
        id,
        adapter: 'test',
        definition: definition({ name: `Svc ${id}`, tools: ['t'] }),
      });
    }
    await host.services.setEnabled('beta', true);
    const first = await host.services.list({ limit: 2 });
    expect(first.items.map((s) => s.id)).toEqual(['alpha', 'beta']);
    expect(first.hasMore).toBe(true);
    const second = await host.services.list({ limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.items.map((s) => s.id)).toEqual(['delta', 'epsilon']);
    const third = await host.services.list({ limit: 2, cursor: second.nextCursor ?? '' });
    expect(third).toEqual({
      items: [expect.objectContaining({ id: 'gamma' })],
      nextCursor: null,
      hasMore: false,
    });
    expect((await host.services.list({ enabled: true })).items.map((s) => s.id)).toEqual(['beta']);
    expect((await host.services.list({ query: 'SVC GAM' })).items.map((s) => s.id)).toEqual(['gamma']);
    expect((await host.services.list({ query: 'svc_gam' })).items).toEqual([]);
    expect((await host.services.list({ query: '%' })).items).toEqual([]);
    await expect(host.services.list({ cursor: 'garbage' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(host.services.list({ limit: 0 })).rejects.toMatchObject({ details: [{ path: 'limit' }] });
    expect((await host.services.list({ limit: 1000 })).items).toHaveLength(5);
  });

  it('hydrates enabled services again when the host restarts', async () => {
    const probe = createProbe();
    const h = await start(probe, { secretsKey: randomBytes(32) });
    await h.host.services.install({ id: 'pets', adapter: 'test', definition: twoTools, enabled: true });
    probe.calls.length = 0;
    await h.restart();
    expect(probe.calls).toEqual(['teardown', 'setup', 'hydrate:pets']);
  });

  it('shows a hydration failed on adapter activation, and leaves the service out of calls, discovery, search and types until it hydrates', async () => {
    const probe = createProbe();
    const environment = createTestEnvironment('env', createEnvironmentProbe());
    const h = await start(probe, { builtins: [createTestAdapter('test', probe), environment] });
    await h.host.services.install({ id: 'pets', adapter: 'test', definition: twoTools, enabled: true });
    await h.host.services.install({ id: 'shop', adapter: 'test', definition: twoTools, enabled: true });
    probe.failHydrate = 'upstream certificate expired';
    await h.restart();
    const { host } = h;
    const failure = 'adapter test failed to hydrate service pets: upstream certificate expired';
    expect(await host.services.get('pets')).toMatchObject({
      enabled: true,
      effectivelyEnabled: false,
      error: failure,
    });
    expect((await host.services.list({ failed: true })).items.map((s) => s.id)).toEqual(['pets', 'shop']);
    probe.failHydrate = undefined;
    // Disabling forgets the failure; enabling again hydrates.
    await host.services.setEnabled('shop', false);
    expect(await host.services.setEnabled('shop', true)).toMatchObject({
      effectivelyEnabled: true,
      error: null,
    });
    expect((await host.services.list({ failed: true })).items.map((s) => s.id)).toEqual(['pets']);
    expect((await host.services.list({ failed: false })).items.map((s) => s.id)).toEqual(['shop']);

    const { tools } = gatewayOf(host);
    await expect(
      tools.invoke({ serviceId: 'pets', toolId: 'listPets', parameters: {} }),
    ).rejects.toMatchObject({
      status: 503,
      message: `service pets is not available: ${failure}`,
    });
    expect((await tools.discoverServices({})).map((s) => s.id)).toEqual(['shop']);
    expect((await tools.discoverTools({ query: 'listPets' })).map((t) => t.serviceId)).toEqual(['shop']);
    expect((await host.tools.list({ query: 'getPet' })).items.map((t) => t.serviceId)).toEqual(['shop']);
    expect((await host.tools.get('pets', 'getPet')).effectivelyEnabled).toBe(false);
    await expect(tools.describeTool('pets', 'getPet')).rejects.toMatchObject({ status: 404 });
    await expect(host.environment.types({ services: ['pets'] })).rejects.toMatchObject({ status: 400 });
    expect(await host.environment.types({ services: ['shop'] })).toContain('shop');

    // The module's re-activation hydrates it again: the failure is gone everywhere.
    await host.modules.setEnabled('test', false);
    await host.modules.setEnabled('test', true);
    expect(await host.services.get('pets')).toMatchObject({ effectivelyEnabled: true, error: null });
    expect((await tools.discoverTools({ query: 'listPets' })).map((t) => t.serviceId)).toEqual([
      'pets',
      'shop',
    ]);
  });

  it('stores nothing when an install asking to enable fails to hydrate, so a retry succeeds', async () => {
    const probe = createProbe();
    const h = await start(probe);
    const input = {
      id: 'pets',
      adapter: 'test',
      definition: twoTools,
      config: { region: 'eu' },
      secrets: { token: 's3cret' },
      enabled: true,
    };
    probe.failHydrate = 'upstream refused the credentials';
    const error = await h.host.services.install(input).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(probe.calls).toEqual(['generateDefinition', 'hydrate:pets', 'dehydrate:pets']);
    expect(await nothingStored(h, 'pets')).toBe(true);
    await expect(h.host.services.get('pets')).rejects.toMatchObject({ code: 'not_found' });
    probe.failHydrate = undefined;
    expect(await h.host.services.install(input)).toMatchObject({ id: 'pets', enabled: true, toolCount: 2 });
    expect(probe.states.get('pets')?.secrets).toEqual({ token: 's3cret' });
  });

  it('hydrates an enabled service again when storing its update fails', async () => {
    const probe = createProbe();
    // The storage refuses the replace as a database does when another writer holds its lock.
    const storage = createHarnessStorage();
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const catalog = {
      ...storage.catalog,
      replaceServiceDefinition: () => Promise.reject(busy),
    };
    harness = await createHarness({ builtins: [createTestAdapter('test', probe)] }, { ...storage, catalog });
    const h = harness;
    const before = await h.host.services.install({
      id: 'pets',
      adapter: 'test',
      definition: twoTools,
      enabled: true,
    });
    probe.calls.length = 0;
    const error = await h.host.services
      .update('pets', { definition: definition({ tools: ['getPet', 'createPet'] }) })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(probe.calls).toEqual(['generateDefinition', 'dehydrate:pets', 'hydrate:pets']);
    expect(probe.states.has('pets')).toBe(true);
    expect(await h.host.services.get('pets')).toMatchObject({
      enabled: true,
      hash: before.hash,
      toolCount: 2,
    });
  });

  it('hydrates on adapter activation under each service lock, never undoing a concurrent change', async () => {
    const probe = createProbe();
    const h = await start(probe);
    const withToken = definition({
      tools: ['ping'],
      secretsSchema: { type: 'object', properties: { token: { type: 'string' } } },
    });
    await h.host.services.install({
      id: 'first',
      adapter: 'test',
      definition: withToken,
      secrets: { token: 'old' },
      enabled: true,
    });
    await h.host.services.install({ id: 'second', adapter: 'test', definition: twoTools, enabled: true });
    await h.host.modules.setEnabled('test', false);
    probe.calls.length = 0;
    let release = () => {};
    probe.hydrateHold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const activating = h.host.modules.setEnabled('test', true);
    await vi.waitFor(() => expect(probe.calls).toEqual(['setup', 'hydrate:first']));
    // While the activation is hydrating 'first': a secrets patch of it, and 'second' disabled.
    const patching = h.host.services.patchSecrets('first', [{ op: 'replace', path: '/token', value: 'new' }]);
    await h.host.services.setEnabled('second', false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await Promise.all([activating, patching]);
    expect(probe.calls).toEqual(['setup', 'hydrate:first', 'dehydrate:second', 'hydrate:first']);
    expect(probe.states.get('first')?.secrets).toEqual({ token: 'new' });
    expect(probe.states.has('second')).toBe(false);
  });

  it('keeps two installs of one id racing across two hosts on one storage consistent', async () => {
    const h = await start(createProbe());
    const other = await createHost({
      storage: h.storage,
      builtins: [createTestAdapter('test', createProbe())],
      secretsKey: randomBytes(32),
    });
    try {
      const results = await Promise.allSettled([
        h.host.services.install({ id: 'pets', adapter: 'test', definition: twoTools }),
        other.services.install({ id: 'pets', adapter: 'test', definition: definition({ tools: ['other'] }) }),
      ]);
      const won = results.findIndex((result) => result.status === 'fulfilled');
      const lost = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(lost?.reason).toMatchObject({ code: 'conflict', status: 409 });
      const { catalog } = h.storage;
      expect((await catalog.listServices({})).map((row) => row.id)).toEqual(['pets']);
      expect((await catalog.listTools({})).map((row) => row.id)).toEqual(
        won === 0 ? ['getPet', 'listPets'] : ['other'],
      );
      expect(await catalog.getConfig({ kind: 'service', id: 'pets' })).toBeDefined();
    } finally {
      await other.close({ graceMs: 0 });
    }
  });
});
