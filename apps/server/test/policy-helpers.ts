import { afterAll, beforeAll, expect } from 'vitest';
import type { RunningServer } from '../src/index';
import {
  apiClient,
  type Json,
  shopSpec,
  startTestServer,
  startUpstream,
  tempDir,
  UPSTREAM_KEY,
  type Upstream,
} from './helpers';

/** The shop with one tool that is not read-only: `createOrder` (`POST /orders`), which asks by default. */
export function ordersSpec(baseUrl: string): Record<string, unknown> {
  const spec = shopSpec(baseUrl) as { paths: Record<string, Record<string, unknown>> };
  const orders = spec.paths['/orders'] as Record<string, unknown>;
  orders.post = {
    operationId: 'createOrder',
    summary: 'Create an order',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { type: 'object', properties: { userId: { type: 'integer' } }, required: ['userId'] },
        },
      },
    },
    responses: { '200': { description: 'ok' } },
  };
  return spec;
}

/** A program whose one call asks: it waits at line 1 until a person decides. */
export const ORDER_CODE = `const order = await cyrnel.services.shop.tools.createOrder.invoke({ body: { userId: 7 } });
cyrnel.output({ status: order.status });`;

/** A client of the server as one key. */
export type Api = ReturnType<typeof apiClient>;

/** The server of a policies test, its upstream, and a client per role. */
export interface PolicyServer {
  url(): string;
  upstream(): Upstream;
  /** The bootstrap admin key's client. */
  readonly admin: Api;
  readonly agent: Api;
  readonly approver: Api;
  /** The stored keys' ids. */
  readonly ids: { agent: string; approver: string };
  /** The stored keys themselves (for requests made without the client, an event stream's). */
  readonly keys: { agent: string; approver: string };
}

/**
 * A server with the out-of-the-box default policy (read-only tools allowed, every other asks: the
 * policies are what these tests are about), the shop of {@link ordersSpec} installed and enabled,
 * and an agent and an approver key. Started before the tests of a `describe`, closed after them.
 */
export function usePolicyServer(): PolicyServer {
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  let server: RunningServer | undefined;
  let shop: Upstream | undefined;
  const clients: Record<'admin' | 'agent' | 'approver', Api | undefined> = {
    admin: undefined,
    agent: undefined,
    approver: undefined,
  };
  const ids = { agent: '', approver: '' };
  const keys = { agent: '', approver: '' };
  beforeAll(async () => {
    dir = await tempDir();
    shop = await startUpstream();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: 'policy-admin',
      allowPrivateUrls: true,
      defaultPolicy: 'default=ask,readOnly=allow',
    });
    const admin = apiClient(server.url, 'policy-admin');
    clients.admin = admin;
    const installed = await admin('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(ordersSpec(shop.url)),
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    expect(installed.status).toBe(201);
    for (const role of ['agent', 'approver'] as const) {
      const created = await admin('POST', '/keys', { name: role, role });
      expect(created.status).toBe(201);
      ids[role] = created.body.id;
      keys[role] = created.body.key;
      clients[role] = apiClient(server.url, created.body.key);
    }
  });
  afterAll(async () => {
    await server?.close();
    await shop?.close();
    await dir?.remove();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('usePolicyServer: the server is not started yet');
    return value;
  };
  const client =
    (role: keyof typeof clients): Api =>
    (method, path, body, headers) =>
      started(clients[role])(method, path, body, headers);
  return {
    url: () => started(server).url,
    upstream: () => started(shop),
    admin: client('admin'),
    agent: client('agent'),
    approver: client('approver'),
    ids,
    keys,
  };
}

/** The record of process `id` once it is idle (polled: the decision resumes it on its own time). */
export async function idleRecord(api: Api, id: number): Promise<Json> {
  for (let i = 0; i < 1000; i++) {
    const record = await api('GET', `/processes/${id}`);
    if (record.body.state === 'idle') return record.body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`process ${id} did not end`);
}
