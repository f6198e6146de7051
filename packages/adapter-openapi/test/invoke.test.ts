import type { AdapterModule } from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantiate } from '../src/index';
import { type Echo, type EchoServer, startEchoServer } from './echo-server';

let server: EchoServer;
let adapter: AdapterModule;

const doc = {
  openapi: '3.0.3',
  info: { title: 'Echo', version: '1' },
  servers: [{ url: 'http://placeholder.invalid' }],
  paths: {
    '/items/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getItem',
        parameters: [
          { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          { name: 'session', in: 'cookie', schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
      post: {
        operationId: 'postItem',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '201': { description: 'created' } },
      },
    },
  },
};

async function install(text: string, config: Record<string, unknown>, secrets: Record<string, unknown> = {}) {
  const definition = await adapter.generateDefinition(text);
  await adapter.hydrateService({
    id: 'svc',
    adapterDomain: definition.adapterDomain,
    tools: Object.fromEntries(definition.tools.map((t) => [t.id, { adapterDomain: t.adapterDomain }])),
    config: { timeoutMs: 30000, ...config },
    secrets,
  });
  return definition;
}

beforeAll(async () => {
  server = await startEchoServer();
  adapter = instantiate();
  await adapter.setup({ config: {}, secrets: {}, logger: console as never });
});

afterAll(async () => {
  await adapter.teardown();
  await server.close();
});

describe('openapi adapter invoke', () => {
  it('does send path, query, header and cookie parameters', async () => {
    await install(JSON.stringify(doc), { baseUrl: server.url });
    const result = (await adapter.invoke({
      serviceId: 'svc',
      toolId: 'getItem',
      parameters: {
        path: { id: 'a b/c' },
        query: { tags: ['x', 'y'] },
        headers: { 'X-Trace': 't1' },
        cookies: { session: 's 1' },
      },
    })) as { status: number; body: Echo };
    expect(result.status).toBe(200);
    expect(result.body.path).toBe('/items/a%20b%2Fc');
    expect(result.body.rawQuery).toBe('tags=x&tags=y');
    expect(result.body.headers['x-trace']).toBe('t1');
    expect(result.body.cookies).toBe('session=s%201');
    expect(result.body.headers.accept).toBe('application/json');
  });

  it('does send a JSON body', async () => {
    await install(JSON.stringify(doc), { baseUrl: server.url });
    const result = (await adapter.invoke({
      serviceId: 'svc',
      toolId: 'postItem',
      parameters: { path: { id: '1' }, body: { a: [1, 'b'] } },
    })) as {
      body: Echo;
    };
    expect(result.body.method).toBe('POST');
    expect(result.body.headers['content-type']).toBe('application/json');
    expect(JSON.parse(result.body.body)).toEqual({ a: [1, 'b'] });
  });
});
