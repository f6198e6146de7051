import type { CyrnelHost } from '@cyrnel/core';
import { createKeyRing } from '@cyrnel/core';
import { listRoutes, routeReasons } from '@cyrnel/sdk/api';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { createApp } from './create-app';
import { openApiDocument } from './openapi';

const idleHost = new Proxy({} as CyrnelHost, { get: () => new Proxy({}, { get: () => async () => ({}) }) });

describe('the OpenAPI document', () => {
  const document = openApiDocument('0.0.0-test');

  it('describes exactly the routes createApp mounts, and nothing it does not', () => {
    const app = createApp(idleHost, {
      apiKey: 'k',
      keys: createKeyRing({ storage: new Proxy({}, { get: () => async () => undefined }) as never }),
      metrics: { contentType: 'text/plain', text: async () => '' },
      logs: { capacity: 1, lines: () => [], subscribe: () => () => {} },
    });
    const mounted = new Set(
      app.routes
        .filter((route) => route.method !== 'ALL' && !route.path.endsWith('/*') && route.path !== '*')
        .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/\/$/, '') || '/'}`),
    );
    const documented = new Set(
      listRoutes().map(({ route }) => `${route.method.toLowerCase()} ${route.path}`),
    );
    expect([...mounted].filter((route) => !documented.has(route)).sort()).toEqual([]);
    expect([...documented].filter((route) => !mounted.has(route)).sort()).toEqual([]);
  });

  it('is a valid OpenAPI 3.1 shape whose schemas compile, with every error reason', () => {
    expect(document.openapi).toBe('3.1.0');
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: document.components });
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(
          operation.responses as Record<string, { content?: Record<string, { schema: unknown }> }>,
        )) {
          for (const { schema } of Object.values(response.content ?? {})) {
            const local = JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"doc#/components'));
            expect(() => ajv.compile(local), `${method} ${path} ${status}`).not.toThrow();
          }
        }
      }
    }
    const reasons = (
      document.components as { schemas: { ErrorBody: { properties: { reason: { enum: string[] } } } } }
    ).schemas.ErrorBody.properties.reason.enum;
    expect(reasons).toContain('refresh_not_supported');
    expect(reasons).toContain('tool_error');
  });

  it('lists per route and status the reasons it can answer', () => {
    type Responses = Record<string, { content?: Record<string, { schema: { allOf?: unknown[] } }> }>;
    const refresh = document.paths['/services/{serviceId}/refresh']?.post as { responses: Responses };
    const conflict = refresh.responses['409']?.content?.['application/json']?.schema.allOf;
    expect(conflict).toEqual([
      { $ref: '#/components/schemas/ErrorBody' },
      { properties: { reason: { enum: ['refresh_not_supported'] } } },
    ]);
    for (const { route } of listRoutes()) {
      const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
      const { responses } = (document.paths[path] as Record<string, { responses: Responses }>)[
        route.method.toLowerCase()
      ] as { responses: Responses };
      const listed = Object.entries(responses)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([, response]) => {
          const schema = response.content?.['application/json']?.schema.allOf?.[1] as {
            properties: { reason: { enum: string[] } };
          };
          return schema.properties.reason.enum;
        });
      expect(listed.sort(), `${route.method} ${route.path}`).toEqual([...routeReasons(route)].sort());
    }
    const health = document.paths['/health']?.get as { responses: Responses };
    expect(Object.keys(health.responses)).toEqual(['200', '403', '500']);
  });

  it('says who may call each route, the approver role included, and describes PUT', () => {
    const who = (path: string, method: string) =>
      (document.paths[path]?.[method] as { description?: string } | undefined)?.description;
    expect(who('/approvals', 'get')).toBe('An approver or admin key (an agent key gets 403 `forbidden`).');
    expect(who('/approvals/plans/{planId}', 'post')).toMatch(/^An approver or admin key/);
    expect(who('/processes', 'post')).toBe('Any key (agent, approver or admin).');
    expect(who('/services/{serviceId}/policy', 'get')).toBe('An admin key.');
    const put = document.paths['/services/{serviceId}/policy']?.put as {
      operationId: string;
      requestBody: { required: boolean; content: Record<string, { schema: unknown }> };
      responses: Record<string, unknown>;
    };
    expect(put.operationId).toBe('putServicesServiceIdPolicy');
    expect(put.requestBody.required).toBe(false);
    expect(put.requestBody.content['application/json']?.schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { default: { type: 'string' }, byAnnotation: { type: 'object' } },
    });
    expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
  });

  it('builds request bodies from the schemas that validate them', () => {
    const install = document.paths['/services']?.post as {
      requestBody: { content: Record<string, { schema: unknown }> };
    };
    expect(install.requestBody.content['application/json']?.schema).toMatchObject({
      type: 'object',
      required: ['id', 'adapter'],
      additionalProperties: false,
      properties: { id: { type: 'string' }, url: { type: 'string' }, enabled: { type: 'boolean' } },
    });
    const key = document.paths['/keys']?.post as {
      requestBody: { content: Record<string, { schema: unknown }> };
    };
    expect(key.requestBody.content['application/json']?.schema).toMatchObject({
      properties: { name: { type: 'string', maxLength: 100 } },
    });
  });

  it('is served without a key at /openapi.json', async () => {
    const app = createApp(idleHost, { apiKey: 'k' });
    const response = await app.request('/openapi.json');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ openapi: '3.1.0', info: { title: 'cyrnel' } });
  });

  it('names the server as the request reached it, or at the public URL it is given', async () => {
    const servers = async (app: ReturnType<typeof createApp>, url: string, host?: string) => {
      const response = await app.request(url, { headers: host === undefined ? {} : { host } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { servers: unknown }).servers;
    };
    const app = createApp(idleHost, { apiKey: 'k', allowedHosts: ['*'] });
    expect(await servers(app, 'http://127.0.0.1:8080/openapi.json', '127.0.0.1:8080')).toEqual([
      { url: 'http://127.0.0.1:8080' },
    ]);
    expect(await servers(app, 'http://[::1]:9999/openapi.json', '[::1]:9999')).toEqual([
      { url: 'http://[::1]:9999' },
    ]);
    expect(await servers(app, 'https://Cyrnel.Example.com/openapi.json', 'Cyrnel.Example.com')).toEqual([
      { url: 'https://cyrnel.example.com' },
    ]);
    // A Host that is more than a host and a port (which the allow-list of every host lets
    // through) is never written into the document.
    for (const hostile of ['evil.example/"><script>', 'user@evil.example', 'a b', 'x:99999']) {
      expect(await servers(app, 'http://127.0.0.1/openapi.json', hostile), hostile).toEqual([{ url: '/' }]);
    }
    const proxied = createApp(idleHost, { apiKey: 'k', publicUrl: 'https://cyrnel.example.com/' });
    expect(await servers(proxied, 'http://127.0.0.1:8080/openapi.json', '127.0.0.1:8080')).toEqual([
      { url: 'https://cyrnel.example.com' },
    ]);
  });
});

describe('API.md', () => {
  it('is the reference rendered from the document (pnpm --filter @cyrnel/http reference)', async () => {
    const { readFile } = await import('node:fs/promises');
    const { renderReference } = await import('./reference');
    const committed = await readFile(new URL('../API.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderReference());
  });
});
