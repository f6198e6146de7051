import { isModuleDefinition, validateModuleManifest } from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from '../test/echo-server';
import { generateDefinition } from './generate-definition';
import openapi, { configSchema, instantiate, manifest, secretsSchema } from './index';

const document = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Pool', version: '1' },
  paths: {
    '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } },
    '/_/hold': { get: { operationId: 'hold', responses: { '200': { description: 'ok' } } } },
  },
});

async function until(predicate: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return predicate();
}

let server: EchoServer;

beforeAll(async () => {
  server = await startEchoServer();
});

afterAll(async () => {
  await server.close();
});

describe('openapi module', () => {
  it('does export the manifest, its own schemas and instantiate, also as the default export', () => {
    expect(manifest).toMatchObject({ id: 'openapi', type: 'adapter' });
    expect(validateModuleManifest({ ...manifest, main: 'index.js' })).toEqual([]);
    expect(openapi).toEqual({ manifest, configSchema, secretsSchema, instantiate });
    expect(isModuleDefinition(openapi)).toBe(true);
    expect(configSchema).toMatchObject({ type: 'object' });
    expect(secretsSchema).toMatchObject({ type: 'object' });
  });

  it('does create independent instances implementing AdapterModule', async () => {
    const a = instantiate();
    const b = instantiate();
    expect(a).not.toBe(b);
    for (const method of [
      'setup',
      'generateDefinition',
      'hydrateService',
      'dehydrateService',
      'invoke',
      'teardown',
    ] as const) {
      expect(typeof a[method]).toBe('function');
    }
    expect(await a.generateDefinition(document)).toEqual(generateDefinition(document));
    await expect(a.generateDefinition('{}')).rejects.toThrow('not an OpenAPI document');
  });

  it('does keep one keep-alive pool per service and release it on dehydrate and teardown', async () => {
    const adapter = instantiate();
    await adapter.setup({ config: {}, secrets: {}, logger: console as never });
    const definition = await adapter.generateDefinition(document);
    const state = (id: string) => ({
      id,
      adapterDomain: definition.adapterDomain,
      tools: { ping: { adapterDomain: definition.tools[0]?.adapterDomain ?? {} } },
      config: { baseUrl: server.url, timeoutMs: 5000 },
      secrets: {},
    });
    await adapter.hydrateService(state('one'));
    await adapter.hydrateService(state('two'));
    await adapter.invoke({ serviceId: 'one', toolId: 'ping', parameters: {} });
    await adapter.invoke({ serviceId: 'one', toolId: 'ping', parameters: {} });
    await adapter.invoke({ serviceId: 'two', toolId: 'ping', parameters: {} });
    expect(server.count()).toBe(3);
    expect(await until(() => server.connections() === 2)).toBe(true);
    await adapter.dehydrateService('one');
    expect(await until(() => server.connections() === 1)).toBe(true);
    await adapter.teardown();
    expect(await until(() => server.connections() === 0)).toBe(true);
    await expect(adapter.invoke({ serviceId: 'two', toolId: 'ping', parameters: {} })).rejects.toThrow(
      'not active',
    );
  });

  it('does let calls in flight finish when a service is re-hydrated (config or secrets changed)', async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(document);
    const hydrate = (headers: Record<string, string>) =>
      adapter.hydrateService({
        id: 'svc',
        adapterDomain: definition.adapterDomain,
        tools: Object.fromEntries(definition.tools.map((t) => [t.id, { adapterDomain: t.adapterDomain }])),
        config: { baseUrl: server.url, timeoutMs: 10000, headers },
        secrets: {},
      });
    await hydrate({ 'x-config': 'old' });
    const inFlight = adapter.invoke({ serviceId: 'svc', toolId: 'hold', parameters: {} });
    await server.held();
    await hydrate({ 'x-config': 'new' });
    const next = (await adapter.invoke({ serviceId: 'svc', toolId: 'ping', parameters: {} })) as {
      body: { headers: Record<string, string> };
    };
    expect(next.body.headers['x-config']).toBe('new');
    server.release();
    const held = (await inFlight) as {
      status: number;
      body: { path: string; headers: Record<string, string> };
    };
    expect([held.status, held.body.path, held.body.headers['x-config']]).toEqual([200, '/_/hold', 'old']);
    // The old pool closes once its call is done; the new one keeps its single connection.
    expect(await until(() => server.connections() === 1)).toBe(true);
    // Teardown does not wait: a replaced pool still running a call is closed too.
    const stuck = adapter.invoke({ serviceId: 'svc', toolId: 'hold', parameters: {} });
    await server.held();
    await hydrate({ 'x-config': 'newer' });
    await adapter.teardown();
    await expect(stuck).rejects.toThrow('failed');
    expect(await until(() => server.connections() === 0)).toBe(true);
    server.release();
  });

  it('does refuse to hydrate a service whose adapterDomain it did not generate', async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(document);
    const base = { id: 's', tools: {}, config: {}, secrets: {} };
    await expect(adapter.hydrateService({ ...base, adapterDomain: {} })).rejects.toThrow(
      "service 's' was not generated",
    );
    await expect(
      adapter.hydrateService({
        ...base,
        adapterDomain: definition.adapterDomain,
        tools: { ping: { adapterDomain: {} } },
      }),
    ).rejects.toThrow("tool 'ping' of service 's'");
    await adapter.teardown();
  });
});
