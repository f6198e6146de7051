import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { shopSpec, startTestServer, startUpstream, tempDir, UPSTREAM_KEY, type Upstream } from './helpers';

const KEY = 'openapi-conformance-key';

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: unknown };

describe('real answers of the server against its own OpenAPI document (GET /openapi.json)', () => {
  let server: RunningServer;
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let document: Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const compiled = new Map<string, ValidateFunction>();
  const checked: string[] = [];

  /** Call `method path`; check the answer's status is documented and its JSON body matches. */
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const pathname = new URL(path, server.url).pathname;
    const template = Object.keys(document.paths).find((candidate) =>
      new RegExp(`^${candidate.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname),
    );
    expect(template, `${method} ${pathname} is documented`).toBeDefined();
    const operation = document.paths[template as string]?.[method.toLowerCase()];
    expect(operation, `${method} ${template} is documented`).toBeDefined();
    const answer = (operation as Operation).responses[String(response.status)];
    expect(answer, `${method} ${template} documents ${response.status}`).toBeDefined();
    const schema = answer?.content?.['application/json']?.schema;
    if (schema !== undefined) {
      const key = `${method} ${template} ${response.status}`;
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(
          JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"doc#/components')),
        );
        compiled.set(key, validate);
      }
      const value = JSON.parse(text);
      expect(validate(value), `${key}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    checked.push(`${method} ${template} ${response.status}`);
    return { status: response.status, body: schema === undefined ? text : JSON.parse(text) };
  };

  beforeAll(async () => {
    dir = await tempDir();
    upstream = await startUpstream();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      urlAllowCidrs: ['127.0.0.1/32'],
    });
    document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
    ajv.addSchema({ $id: 'doc', components: document.components });
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dir?.remove();
  });

  it('answers every route of a tour as documented, successes and errors alike', async () => {
    await call('GET', '/health');
    await call('GET', '/modules');
    await call('GET', '/modules/openapi');
    await call('GET', '/modules/openapi/config');
    await call('GET', '/modules/openapi/secrets');
    await call('GET', '/modules/openapi/config/schema');
    await call('POST', '/modules/reload');
    await call('POST', '/modules/openapi/update');
    await call('GET', '/modules/nope');
    await call('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec(upstream.url)),
      secrets: { shopKey: UPSTREAM_KEY },
    });
    await call('POST', '/services', { id: 'shop', adapter: 'openapi' });
    await call('GET', '/services?limit=5');
    await call('GET', '/services/shop');
    await call('PATCH', '/services/shop/config', [{ op: 'replace', path: '/timeoutMs', value: 5000 }]);
    await call('GET', '/services/shop/secrets');
    await call('PATCH', '/services/shop/secrets', [{ op: 'add', path: '/shopKey', value: UPSTREAM_KEY }]);
    await call('GET', '/services/shop/secrets/schema');
    await call('POST', '/services/shop/enabled', { enabled: true });
    await call('POST', '/services/shop/refresh');
    await call('POST', '/services/shop/update');
    await call('PATCH', '/services/shop', { definition: JSON.stringify(shopSpec(upstream.url)) });
    await call('GET', '/tools?query=user');
    await call('GET', '/tools/shop/getUser');
    await call('GET', '/tools/shop/getUser/docs');
    await call('POST', '/tools/shop/listOrders/enabled', { enabled: true });
    await call('GET', '/environment/docs');
    await call('GET', '/environment/types?tools=shop.getUser');
    const run = await call('POST', '/processes', {
      code: 'const u = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } }); cyrnel.output({ name: u.body.name });',
      wait: true,
    });
    const id = (run.body as { id: number }).id;
    await call('POST', '/processes', { code: 'cyrnel.output({ a: 1 });', autorun: false });
    const mistyped = 'await cyrnel.services.shop.tools.getUser.invoke({ path: { id: "7" } });';
    await call('POST', '/processes', { code: mistyped, check: true });
    await call('POST', '/processes', { code: mistyped, typecheck: 'reject' });
    await call('GET', '/processes?limit=2');
    await call('GET', `/processes/${id}`);
    await call('GET', `/processes/${id}/code`);
    await call('GET', `/processes/${id}/stdout`);
    await call('GET', `/processes/${id}/output`);
    await call('GET', `/processes/${id}/calls`);
    await call('POST', `/processes/${id}/signals/kill`);
    await call('POST', `/processes/${id}/signals/run`, { force: true });
    await call('GET', '/processes/999999');
    await call('POST', '/keys', { name: 'reader', role: 'agent' });
    await call('GET', '/keys');
    await call('GET', '/me');
    await call('DELETE', '/keys/00000000-0000-0000-0000-000000000000');
    await call('GET', '/registries');
    expect((await call('GET', '/metrics')).status).toBe(200);
    expect((await call('GET', '/logs?level=info&tail=50')).body.items.length).toBeGreaterThan(0);
    expect((await call('GET', '/logs?level=loud')).status).toBe(400);
    await call('DELETE', '/services/shop');
    await call('GET', '/services/shop');
    expect(new Set(checked.map((entry) => entry.split(' ')[2])).size).toBeGreaterThan(3);
  });
});
