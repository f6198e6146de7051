import { afterEach, describe, expect, it } from 'vitest';
import { gatewayOf } from './support/gateway';
import { createHarness, createHarnessStorage, type Harness, type HarnessStorage } from './support/harness';
import { type AdapterProbe, createProbe, createTestAdapter, definition } from './support/test-adapter';
import { createEnvironmentProbe, createTestEnvironment } from './support/test-environment';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const text = definition({
  tools: [
    { id: 'listPets', name: 'List pets', description: 'Lists every pet in the store' },
    {
      id: 'getPet',
      name: 'Get pet',
      description: 'Returns one pet by id',
      inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    },
    { id: 'pets', name: 'Pets', description: 'A tool named like a word in the others' },
  ],
});

async function start(
  probe: AdapterProbe,
  options: Parameters<typeof createHarness>[0] = {},
  storage: HarnessStorage = createHarnessStorage(),
) {
  harness = await createHarness(
    {
      builtins: [createTestAdapter('test', probe), createTestEnvironment('env', createEnvironmentProbe())],
      ...options,
    },
    storage,
  );
  await harness.host.services.install({ id: 'store', adapter: 'test', definition: text, enabled: true });
  probe.calls.length = 0;
  return harness.host;
}

describe('invocation gate', () => {
  it('invokes an enabled tool through the adapter', async () => {
    const probe = createProbe();
    const host = await start(probe);
    const { tools } = gatewayOf(host);
    expect(await tools.invoke({ serviceId: 'store', toolId: 'getPet', parameters: { id: 7 } })).toEqual({
      echo: { id: 7 },
      route: '/getPet',
    });
    expect(probe.calls).toEqual(['invoke:store.getPet']);
  });

  it('answers 404, 409, 503 and 400 in that order, never calling the adapter', async () => {
    const probe = createProbe();
    const host = await start(probe);
    const { tools } = gatewayOf(host);
    const status = (input: { serviceId: string; toolId: string; parameters?: Record<string, unknown> }) =>
      tools.invoke({ parameters: {}, ...input }).then(
        () => 200,
        (error: { status: number }) => error.status,
      );
    expect(await status({ serviceId: 'nope', toolId: 'getPet' })).toBe(404);
    expect(await status({ serviceId: 'store', toolId: 'nope' })).toBe(404);
    await host.tools.setEnabled('store', 'getPet', false);
    expect(await status({ serviceId: 'store', toolId: 'getPet', parameters: { id: 'bad' } })).toBe(409);
    await host.tools.setEnabled('store', 'getPet', true);
    const invalid = await tools
      .invoke({ serviceId: 'store', toolId: 'getPet', parameters: { id: 'x' } })
      .catch((e) => e);
    expect(invalid).toMatchObject({ status: 400, details: [expect.objectContaining({ path: '/id' })] });
    await host.services.setEnabled('store', false);
    expect(await status({ serviceId: 'store', toolId: 'nope' })).toBe(404);
    expect(await status({ serviceId: 'store', toolId: 'getPet', parameters: { id: 'bad' } })).toBe(409);
    await host.services.setEnabled('store', true);
    await host.modules.setEnabled('test', false);
    expect(await status({ serviceId: 'store', toolId: 'getPet', parameters: { id: 'bad' } })).toBe(503);
    expect(probe.calls.filter((call) => call.startsWith('invoke'))).toEqual([]);
  });

  it("reads a callable tool's flags once per catalog revision, and a refused one on every call", async () => {
    const probe = createProbe();
    const storage = createHarnessStorage();
    let reads = 0;
    const catalog = storage.catalog;
    const counted = {
      ...storage,
      catalog: new Proxy(catalog, {
        get(target, property, receiver) {
          if (property === 'getToolGate')
            return (serviceId: string, toolId: string) => {
              reads++;
              return target.getToolGate(serviceId, toolId);
            };
          const value = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    };
    const host = await start(probe, {}, counted);
    const { tools } = gatewayOf(host);
    const call = () =>
      tools.invoke({ serviceId: 'store', toolId: 'listPets', parameters: {} }).then(
        () => 200,
        (error: { status: number }) => error.status,
      );
    reads = 0;
    expect([await call(), await call(), await call()]).toEqual([200, 200, 200]);
    expect(reads).toBe(1);
    // A write moves the revision: the disable counts from the next call on, each refusal read again.
    await host.tools.setEnabled('store', 'listPets', false);
    expect([await call(), await call()]).toEqual([409, 409]);
    expect(reads).toBe(3);
    await host.services.setEnabled('store', false);
    await host.tools.setEnabled('store', 'listPets', true);
    expect(await call()).toBe(409);
    await host.services.setEnabled('store', true);
    expect([await call(), await call()]).toEqual([200, 200]);
    expect(reads).toBe(5);
    expect(probe.calls.filter((entry) => entry === 'invoke:store.listPets')).toHaveLength(5);
  });

  it('validates against the schema of the current definition after an update', async () => {
    const probe = createProbe();
    const host = await start(probe);
    const { tools } = gatewayOf(host);
    const call = (id: unknown) =>
      tools.invoke({ serviceId: 'store', toolId: 'getPet', parameters: { id } }).then(
        () => 200,
        (error: { status: number }) => error.status,
      );
    expect([await call(7), await call('seven')]).toEqual([200, 400]);
    const byName = definition({
      tools: [
        {
          id: 'getPet',
          name: 'Get pet',
          description: 'Returns one pet by name',
          inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        },
      ],
    });
    await host.services.update('store', { definition: byName });
    await host.services.setEnabled('store', true);
    expect([await call(7), await call('seven')]).toEqual([400, 200]);
    expect(probe.calls.filter((c) => c.startsWith('invoke'))).toEqual([
      'invoke:store.getPet',
      'invoke:store.getPet',
    ]);
  });

  it('refuses malformed calls and queries with 400', async () => {
    const probe = createProbe();
    const host = await start(probe);
    const { tools } = gatewayOf(host);
    await expect(tools.invoke({ serviceId: 1, toolId: 'x' } as never)).rejects.toMatchObject({ status: 400 });
    await expect(
      tools.invoke({ serviceId: 'store', toolId: 'listPets', parameters: [1] as never }),
    ).rejects.toMatchObject({ status: 400, details: [{ path: 'parameters' }] });
    await expect(tools.discoverTools({ limit: 0 })).rejects.toMatchObject({ status: 400 });
    await expect(tools.discoverTools({ query: 5 } as never)).rejects.toMatchObject({ status: 400 });
    await expect(host.tools.setEnabled('store', 'getPet', 'false' as never)).rejects.toMatchObject({
      status: 400,
    });
    await expect(host.tools.get('store', 'no such')).rejects.toMatchObject({ status: 400 });
    await expect(host.tools.get('store', 'missing')).rejects.toMatchObject({ status: 404 });
    expect(probe.calls).toEqual([]);
  });

  it('turns adapter failures into 502 with the adapter message', async () => {
    const probe = createProbe();
    const host = await start(probe);
    const { tools } = gatewayOf(host);
    probe.failInvoke = 'connection refused';
    await expect(
      tools.invoke({ serviceId: 'store', toolId: 'listPets', parameters: {} }),
    ).rejects.toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: 'connection refused',
    });
  });

  it('answers an adapter call past its deadline as an adapter failure: 502 saying it timed out', async () => {
    const probe = createProbe();
    const host = await start(probe, { limits: { invokeTimeoutMs: 20 } });
    const { tools } = gatewayOf(host);
    probe.invokeDelayMs = 200;
    await expect(
      tools.invoke({ serviceId: 'store', toolId: 'listPets', parameters: {} }),
    ).rejects.toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: 'tool store.listPets timed out after 20 ms',
    });
  });
});

describe('tools', () => {
  it('lists with filters, effectivelyEnabled and stable cursors', async () => {
    const probe = createProbe();
    const host = await start(probe);
    await host.services.install({
      id: 'other',
      adapter: 'test',
      definition: definition({ tools: ['a', 'b'] }),
    });
    await host.tools.setEnabled('store', 'pets', false);
    const all = [];
    let cursor: string | undefined;
    do {
      const page = await host.tools.list({ limit: 2, ...(cursor ? { cursor } : {}) });
      all.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(all.map((tool) => `${tool.serviceId}.${tool.id}:${tool.effectivelyEnabled}`)).toEqual([
      'other.a:false',
      'other.b:false',
      'store.getPet:true',
      'store.listPets:true',
      'store.pets:false',
    ]);
    expect(all[0]).not.toHaveProperty('inputSchema');
    // With a query: the ranked search of effectively enabled tools, not cursor-paged.
    expect(await host.tools.list({ query: 'PET BY' })).toMatchObject({
      items: [{ id: 'getPet' }, { id: 'listPets' }],
      nextCursor: null,
      hasMore: false,
    });
    expect(await host.tools.list({ query: 'pet', limit: 1 })).toMatchObject({
      items: [{ id: 'getPet' }],
      nextCursor: null,
      hasMore: true,
    });
    expect((await host.tools.list({ query: 'a', serviceId: 'other' })).items).toEqual([]);
    await expect(host.tools.list({ query: 'pet', cursor: 'eyJ4IjoxfQ' })).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'cursor' }],
    });
    await expect(host.tools.list({ query: 'pet', enabled: false })).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'enabled' }],
    });
    expect((await host.tools.list({ enabled: false })).items.map((t) => t.id)).toEqual(['pets']);
    await expect(host.tools.list({ serviceId: 'missing' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(host.tools.list({ cursor: 'eyJ4IjoxfQ' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(host.tools.list({ enabled: 'true' as never })).rejects.toMatchObject({
      details: [{ path: 'enabled' }],
    });
    await host.modules.setEnabled('test', false);
    expect((await host.tools.get('store', 'getPet')).effectivelyEnabled).toBe(false);
  });

  it('serves docs and types from the active environment', async () => {
    const probe = createProbe();
    const host = await start(probe);
    expect(await host.tools.docs('store', 'getPet')).toBe('## store.getPet');
    expect(await host.environment.docs()).toBe('# env');
    expect(await host.environment.types()).toContain('store.getPet');
    await host.modules.setEnabled('env', false);
    await expect(host.environment.docs()).rejects.toMatchObject({ status: 503 });
    await expect(host.environment.types()).rejects.toMatchObject({ status: 503 });
    await expect(host.tools.docs('store', 'getPet')).rejects.toMatchObject({ status: 503 });
  });
});

describe('discovery', () => {
  it('lists enabled services and ranks effectively enabled tools', async () => {
    const probe = createProbe();
    const host = await start(probe);
    await host.services.install({ id: 'off', adapter: 'test', definition: definition({ tools: ['pets'] }) });
    const { tools } = gatewayOf(host);
    expect(await tools.discoverServices({})).toEqual([
      { id: 'store', name: 'Test service', description: 'a service for tests', toolCount: 3 },
    ]);
    // The exact id, then ids or names holding the (stemmed) word, shortest first.
    const ranked = await tools.discoverTools({ query: 'pets' });
    expect(ranked.map((tool) => tool.toolId)).toEqual(['pets', 'getPet', 'listPets']);
    expect((await tools.discoverTools({ query: 'one pet' })).map((t) => t.toolId)).toEqual([
      'getPet',
      'listPets',
      'pets',
    ]);
    expect(await tools.discoverTools({ limit: 1 })).toHaveLength(1);
    expect(await tools.discoverTools({ query: 'pets', serviceId: 'off' })).toEqual([]);
    await host.tools.setEnabled('store', 'pets', false);
    expect((await tools.discoverTools({ query: 'pets' })).map((t) => t.toolId)).toEqual([
      'getPet',
      'listPets',
    ]);
    // The adapter's activity follows too: no active adapter, nothing to call, nothing found.
    await host.modules.setEnabled('test', false);
    expect(await tools.discoverTools({ query: 'pets' })).toEqual([]);
    expect(await tools.discoverTools({})).toEqual([]);
    await host.modules.setEnabled('test', true);
    await expect(tools.describeTool('store', 'pets')).rejects.toMatchObject({ status: 404 });
    expect(await tools.describeTool('store', 'getPet')).toMatchObject({
      serviceId: 'store',
      toolId: 'getPet',
      inputSchema: { required: ['id'] },
    });
  });
});
