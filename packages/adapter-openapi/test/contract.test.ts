import { runAdapterContract } from '@cyrnel/testing';
import { afterAll, expect } from 'vitest';
import { instantiate } from '../src/index';
import { type EchoServer, startEchoServer } from './echo-server';

// A two-operation document against the echo server: `/_/slow` never answers (the abort case).
function document(baseUrl: string): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Echo', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    components: { schemas: { Echo: { type: 'object', properties: { method: { type: 'string' } } } } },
    paths: {
      '/things/{id}': {
        get: {
          operationId: 'getThing',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Echo' } } },
            },
          },
        },
      },
      '/_/slow': { get: { operationId: 'slow', responses: { '200': { description: 'never' } } } },
    },
  });
}

let echo: EchoServer | undefined;
afterAll(async () => {
  await echo?.close();
});

runAdapterContract({
  name: 'openapi',
  create: () => instantiate(),
  async fixture() {
    echo = await startEchoServer();
    const text = document(echo.url);
    // The host applies config defaults before hydrating: do the same from the generated schema.
    const probe = instantiate();
    const { configSchema } = await probe.generateDefinition(text);
    const properties = (configSchema.properties ?? {}) as Record<string, { default?: unknown }>;
    const config = Object.fromEntries(
      Object.entries(properties).flatMap(([key, schema]) =>
        schema.default === undefined ? [] : [[key, schema.default]],
      ),
    );
    return {
      definition: text,
      invalidDefinition: '{"openapi": "3.0.3", "paths": 42}',
      config,
      call: {
        toolId: 'getThing',
        parameters: { path: { id: 7 } },
        check: (result) => {
          expect(result).toMatchObject({ status: 200, body: { method: 'GET', path: '/things/7' } });
        },
      },
    };
  },
  slowCall: { toolId: 'slow', parameters: {} },
});
