import type { OutboundPolicy } from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantiate } from '../src/index';
import { type EchoServer, startEchoServer } from './echo-server';

/**
 * A policy shaped like the host's (`createOutboundPolicy` of @cyrnel/core, tested there): only the
 * listed addresses, and never `ownPort` on loopback. It records every check.
 */
function testPolicy(allowed: readonly string[], ownPort?: number): OutboundPolicy & { checks: string[] } {
  const checks: string[] = [];
  return {
    checks,
    check(address, port, hostname) {
      checks.push(`${hostname} ${address}:${port}`);
      if (port === ownPort && /^(127\.|::1$|::ffff:127\.)/.test(address))
        throw new Error(`refusing to connect to ${address}:${port}: that is cyrnel's own API`);
      if (!allowed.includes(address))
        throw new Error(
          `refusing to connect to ${address}:${port} (private, loopback, link-local, metadata or denied address)`,
        );
    },
  };
}

const document = (base: string) => ({
  openapi: '3.0.3',
  info: { title: 'outbound', version: '1' },
  servers: [{ url: base }],
  paths: {
    '/_/goto': {
      get: {
        operationId: 'goto',
        parameters: [{ name: 'to', in: 'query', schema: { type: 'string' } }],
        responses: { '200': { description: 'echo' } },
      },
    },
    '/echo': { get: { operationId: 'echo', responses: { '200': { description: 'echo' } } } },
  },
});

async function service(base: string, outbound?: OutboundPolicy) {
  const adapter = instantiate();
  await adapter.setup({
    config: {},
    secrets: {},
    logger: console as never,
    ...(outbound ? { outbound } : {}),
  });
  const definition = await adapter.generateDefinition(JSON.stringify(document(base)));
  await adapter.hydrateService({
    id: 'svc',
    adapterDomain: definition.adapterDomain,
    tools: Object.fromEntries(definition.tools.map((t) => [t.id, { adapterDomain: t.adapterDomain }])),
    config: { timeoutMs: 5000 },
    secrets: {},
  });
  const call = (toolId: string, parameters: Record<string, unknown> = {}) =>
    adapter.invoke({ serviceId: 'svc', toolId, parameters }) as Promise<{ status: number; body: unknown }>;
  return { adapter, call };
}

let upstream: EchoServer;
let target: EchoServer;

beforeAll(async () => {
  upstream = await startEchoServer('127.0.0.1');
  // Another loopback address: an allow-list can let the upstream through and not the target.
  target = await startEchoServer('127.0.0.2');
});

afterAll(async () => {
  await upstream.close();
  await target.close();
});

describe('outbound policy of tool calls', () => {
  it('does check the first request and refuse a redirect to a refused address, which receives nothing', async () => {
    const policy = testPolicy(['127.0.0.1']);
    const { adapter, call } = await service(upstream.url, policy);
    const before = target.count();
    const port = new URL(target.url).port;
    await expect(call('goto', { query: { to: `${target.url}/secret` } })).rejects.toThrow(
      `refusing to connect to 127.0.0.2:${port} (private, loopback, link-local, metadata or denied address) (after a redirect from 127.0.0.1:${new URL(upstream.url).port})`,
    );
    expect(target.count()).toBe(before);
    expect(policy.checks).toEqual([
      `127.0.0.1 127.0.0.1:${new URL(upstream.url).port}`,
      `127.0.0.2 127.0.0.2:${port}`,
    ]);
    await adapter.teardown();
  });

  it('does follow the redirect when the policy allows the target', async () => {
    const { adapter, call } = await service(upstream.url, testPolicy(['127.0.0.1', '127.0.0.2']));
    const result = await call('goto', { query: { to: `${target.url}/fine` } });
    expect(result).toMatchObject({ status: 200, body: { path: '/fine' } });
    await adapter.teardown();
  });

  it("does refuse cyrnel's own port even where the policy allows the address", async () => {
    const ownPort = Number(new URL(target.url).port);
    const { adapter, call } = await service(upstream.url, testPolicy(['127.0.0.1', '127.0.0.2'], ownPort));
    const before = target.count();
    await expect(
      call('goto', { query: { to: `http://127.0.0.1:${ownPort}/services/x/config` } }),
    ).rejects.toThrow(`refusing to connect to 127.0.0.1:${ownPort}: that is cyrnel's own API`);
    expect(target.count()).toBe(before);
    await adapter.teardown();
  });

  it('does refuse a base URL at a refused address before connecting', async () => {
    const { adapter, call } = await service(upstream.url, testPolicy([]));
    const before = upstream.count();
    await expect(call('echo')).rejects.toThrow(
      `refusing to connect to 127.0.0.1:${new URL(upstream.url).port} (private`,
    );
    expect(upstream.count()).toBe(before);
    await adapter.teardown();
  });

  it('does check every address a host name resolves to, inside the lookup', async () => {
    const port = new URL(upstream.url).port;
    const refusing = testPolicy([]);
    const denied = await service(`http://localhost:${port}`, refusing);
    const before = upstream.count();
    await expect(denied.call('echo')).rejects.toThrow(/^refusing to connect to (127\.0\.0\.1|::1):/);
    expect(upstream.count()).toBe(before);
    expect(refusing.checks[0]).toMatch(/^localhost (127\.0\.0\.1|::1):\d+$/);
    await denied.adapter.teardown();
    const allowing = testPolicy(['127.0.0.1', '::1']);
    const allowed = await service(`http://localhost:${port}`, allowing);
    expect(await allowed.call('echo')).toMatchObject({ status: 200, body: { path: '/echo' } });
    expect(allowing.checks.length).toBeGreaterThan(0);
    await allowed.adapter.teardown();
  });

  it('does check nothing without a policy (embedders, tests)', async () => {
    const { adapter, call } = await service(upstream.url);
    expect(await call('goto', { query: { to: `${target.url}/free` } })).toMatchObject({
      body: { path: '/free' },
    });
    await adapter.teardown();
  });
});
