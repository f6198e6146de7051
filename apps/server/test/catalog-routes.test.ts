import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import {
  adapterManifest,
  apiClient,
  FLAKY_ADAPTER,
  type Json,
  shopSpec,
  startTestServer,
  startUpstream,
  tempDir,
  type Upstream,
  writeModule,
} from './helpers';

const expectError = (response: { status: number; body: Json }, status: number, code: string) => {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  expect(typeof response.body.error).toBe('string');
};

/** Every route answers 404 `not_found` (each named in a failure). */
async function expectAllNotFound(
  api: ReturnType<typeof apiClient>,
  routes: readonly (readonly [string, string, unknown?])[],
) {
  for (const [method, path, body] of routes) {
    const response = await api(method, path, body);
    expect({ path: `${method} ${path}`, status: response.status, code: response.body.code }).toEqual({
      path: `${method} ${path}`,
      status: 404,
      code: 'not_found',
    });
  }
}

describe('catalog routes (modules, services, tools, environment)', () => {
  let server: RunningServer;
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;
  let spec: string;

  beforeAll(async () => {
    dir = await tempDir();
    upstream = await startUpstream();
    // Custom modules found in the data directory at start.
    await writeModule(dir.path, 'flaky', adapterManifest('flaky'), FLAKY_ADAPTER);
    await writeModule(dir.path, 'gone', adapterManifest('gone'), FLAKY_ADAPTER);
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: 'catalog-key',
      urlAllowCidrs: ['127.0.0.1/32'],
      maxBodyBytes: 256 * 1024,
      maxDefinitionBytes: 64 * 1024,
      downloadTimeoutMs: 1500,
    });
    api = apiClient(server.url, 'catalog-key');
    spec = JSON.stringify(shopSpec(upstream.url));
  });

  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dir?.remove();
  });

  describe('auth, health, envelopes', () => {
    it('serves /health without a key and refuses other routes without the right one', async () => {
      const health = await apiClient(server.url)('GET', '/health');
      expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(health.headers.get('x-request-id')).toBeTruthy();
      expectError(await apiClient(server.url)('GET', '/services'), 401, 'unauthorized');
      expectError(await apiClient(server.url, 'wrong')('GET', '/services'), 401, 'unauthorized');
      // The events stream is refused before anything is looked up or streamed.
      for (const client of [apiClient(server.url), apiClient(server.url, 'wrong')]) {
        const events = await client('GET', '/processes/1/events');
        expectError(events, 401, 'unauthorized');
        expect(events.headers.get('content-type')).toContain('application/json');
      }
    });

    it('answers unknown routes with 404 and oversized or malformed bodies with 413 and 400', async () => {
      expectError(await api('GET', '/nowhere'), 404, 'not_found');
      expectError(await api('PUT', '/services'), 404, 'not_found');
      expectError(await api('POST', '/services', 'x'.repeat(300 * 1024)), 413, 'payload_too_large');
      expectError(await api('POST', '/services', '{"id":'), 400, 'invalid_request');
    });

    it('bounds a chunked body as it arrives and reads one of a declared length whole', async () => {
      // node:http sends `Transfer-Encoding: chunked` when no length is set, a chunk per write.
      const send = (chunks: readonly string[]) =>
        new Promise<{ status: number; body: Json }>((resolve, reject) => {
          const outgoing = request(new URL('/services', server.url), {
            method: 'POST',
            headers: { authorization: 'Bearer catalog-key', 'content-type': 'application/json' },
          });
          outgoing.on('error', reject);
          outgoing.on('response', (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              text += chunk;
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
          });
          for (const chunk of chunks) outgoing.write(chunk);
          outgoing.end();
        });
      // No declared length: the limit (256 KiB) cuts the upload off.
      const big = `{"id":"chunked","adapter":"openapi","definition":"${'x'.repeat(300 * 1024)}"}`;
      expectError(await send([big.slice(0, 1000), big.slice(1000)]), 413, 'payload_too_large');
      // Chunked within the limit, and the same body with a declared length: read whole and checked.
      const small = ['{"id":"chunked","adapter":"openapi",', '"definition":"not a description"}'];
      const chunked = await send(small);
      const declared = await api('POST', '/services', JSON.parse(small.join('')));
      expect(chunked).toEqual({ status: declared.status, body: declared.body });
      expectError(chunked, 400, 'invalid_request');
      expect(chunked.body.error).toMatch(/definition/);
    });
  });

  describe('modules', () => {
    it('lists the built-in modules with filters and pagination', async () => {
      const all = await api('GET', '/modules');
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ hasMore: false, nextCursor: null });
      expect(all.body.items.map((m: { id: string }) => m.id).sort()).toEqual([
        'flaky',
        'gone',
        'mcp',
        'openapi',
        'typescript-ivm',
      ]);
      const adapters = await api('GET', '/modules?type=adapter&isBuiltin=true&enabled=true');
      expect(adapters.body.items).toEqual([
        expect.objectContaining({ id: 'mcp', type: 'adapter', status: 'active' }),
        expect.objectContaining({ id: 'openapi', type: 'adapter', status: 'active' }),
      ]);
      const page = await api('GET', '/modules?limit=1');
      expect(page.body).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
      const next = await api('GET', `/modules?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`);
      expect(next.body.items).toHaveLength(1);
      expect(next.body.items[0].id).not.toBe(page.body.items[0].id);
      expectError(await api('GET', '/modules?type=plugin'), 400, 'invalid_request');
      expectError(await api('GET', '/modules?limit=0'), 400, 'invalid_request');
      expectError(await api('GET', '/modules?cursor=garbage'), 400, 'invalid_request');
    });

    it('shows a module with its schemas, config and secrets', async () => {
      const detail = await api('GET', '/modules/openapi');
      expect(detail.body).toMatchObject({ id: 'openapi', isBuiltin: true, configSchema: expect.anything() });
      expect((await api('GET', '/modules/openapi/config/schema')).status).toBe(200);
      expect((await api('GET', '/modules/openapi/secrets/schema')).status).toBe(200);
      expect(await api('GET', '/modules/openapi/config')).toMatchObject({
        status: 200,
        body: { config: expect.any(Object) },
      });
      expect(await api('GET', '/modules/openapi/secrets')).toMatchObject({
        status: 200,
        body: { present: [] },
      });
      expectError(await api('GET', '/modules/nope'), 404, 'not_found');
      expectError(await api('PATCH', '/modules/openapi/config', { op: 'add' }), 400, 'invalid_request');
    });

    it('disables and re-enables an adapter, strictly typed', async () => {
      expectError(
        await api('POST', '/modules/openapi/enabled', { enabled: 'false' }),
        400,
        'invalid_request',
      );
      expectError(await api('POST', '/modules/openapi/enabled', {}), 400, 'invalid_request');
      const off = await api('POST', '/modules/openapi/enabled', { enabled: false });
      expect(off.body).toMatchObject({ id: 'openapi', enabled: false });
      const on = await api('POST', '/modules/openapi/enabled', { enabled: true });
      expect(on.body).toMatchObject({ id: 'openapi', enabled: true, status: 'active' });
    });

    it('reloads the modules directory, refusing unknown body fields', async () => {
      const reloaded = await api('POST', '/modules/reload');
      expect(reloaded).toMatchObject({ status: 200, body: { loaded: ['flaky', 'gone'], skipped: [] } });
      expect((await api('POST', '/modules/reload', {})).status).toBe(200);
      expectError(await api('POST', '/modules/reload', { force: true }), 400, 'invalid_request');
    });

    it('serves a custom module loaded from the data directory, with its config and secrets', async () => {
      expect((await api('GET', '/modules/flaky')).body).toMatchObject({
        id: 'flaky',
        type: 'adapter',
        isBuiltin: false,
        enabled: true,
        status: 'active',
        configSchema: { properties: { greeting: expect.any(Object) } },
      });
      expect((await api('GET', '/modules/flaky/config')).body).toEqual({ config: { greeting: 'hello' } });
      const patched = await api('PATCH', '/modules/flaky/config', [
        { op: 'replace', path: '/greeting', value: 'hi' },
      ]);
      expect(patched).toMatchObject({ status: 200, body: { config: { greeting: 'hi' } } });
      expect((await api('GET', '/modules/flaky')).body.status).toBe('active');
      expectError(
        await api('PATCH', '/modules/flaky/config', [{ op: 'add', path: '/unknown', value: 1 }]),
        400,
        'invalid_request',
      );
      const secret = await api('PATCH', '/modules/flaky/secrets', [
        { op: 'add', path: '/token', value: 'module-secret' },
      ]);
      expect(secret).toMatchObject({ status: 200, body: { updated: true } });
      const present = await api('GET', '/modules/flaky/secrets');
      expect(present.body).toEqual({ present: ['/token'] });
      expect(present.text).not.toContain('module-secret');
      expectError(
        await api('PATCH', '/modules/flaky/secrets', [{ op: 'replace', path: '/token', value: 42 }]),
        400,
        'invalid_request',
      );
      expectError(await api('PATCH', '/modules/flaky/secrets', { op: 'add' }), 400, 'invalid_request');
    });

    it('answers 404 on every route of an unknown module', async () => {
      await expectAllNotFound(api, [
        ['GET', '/modules/nope/config'],
        ['PATCH', '/modules/nope/config', []],
        ['GET', '/modules/nope/secrets'],
        ['PATCH', '/modules/nope/secrets', []],
        ['GET', '/modules/nope/config/schema'],
        ['GET', '/modules/nope/secrets/schema'],
        ['POST', '/modules/nope/enabled', { enabled: true }],
      ]);
    });

    it('marks a removed module missing on reload (409 on enable) and skips a bad manifest with its reason', async () => {
      await rm(`${dir.path}/modules/gone`, { recursive: true });
      await writeModule(dir.path, 'broken', '{ not json', 'export default {}');
      await writeModule(
        dir.path,
        'escaping',
        { ...adapterManifest('escaping'), main: '../flaky/index.mjs' },
        '',
      );
      const reloaded = await api('POST', '/modules/reload');
      expect(reloaded.status).toBe(200);
      expect(reloaded.body.loaded).toEqual(['flaky']);
      expect(reloaded.body.skipped).toEqual([
        { dir: 'broken', error: 'module.json is not valid JSON' },
        { dir: 'escaping', error: 'main must be a file inside the module directory' },
      ]);
      expect((await api('GET', '/modules/gone')).body).toMatchObject({ id: 'gone', status: 'missing' });
      expectError(await api('POST', '/modules/gone/enabled', { enabled: true }), 409, 'conflict');
      await rm(`${dir.path}/modules/broken`, { recursive: true });
      await rm(`${dir.path}/modules/escaping`, { recursive: true });
    });
  });

  describe('services', () => {
    it('installs inline, refuses duplicates, bad adapters, bad definitions and bad bodies', async () => {
      const installed = await api('POST', '/services', { id: 'shop', adapter: 'openapi', definition: spec });
      expect(installed.status).toBe(201);
      expect(installed.body).toMatchObject({
        id: 'shop',
        name: 'Shop',
        description: 'Users and their orders',
        enabled: false,
        toolCount: 2,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        createdAt: expect.any(String),
      });
      expectError(
        await api('POST', '/services', { id: 'shop', adapter: 'openapi', definition: spec }),
        409,
        'conflict',
      );
      expectError(
        await api('POST', '/services', { id: 'x', adapter: 'nope', definition: spec }),
        400,
        'invalid_request',
      );
      expectError(
        await api('POST', '/services', { id: 'x', adapter: 'openapi', definition: 'hello' }),
        400,
        'invalid_request',
      );
      expectError(
        await api('POST', '/services', { id: 'bad-id', adapter: 'openapi', definition: spec }),
        400,
        'invalid_request',
      );
      expectError(
        await api('POST', '/services', { id: 'x', adapter: 'openapi', definition: spec, extra: 1 }),
        400,
        'invalid_request',
      );
      expectError(
        await api('POST', '/services', { id: 'x', adapter: 'openapi', definition: spec, url: upstream.url }),
        400,
        'invalid_request',
      );
    });

    it('installs by URL with the download errors (timeout, size cap, non-2xx, empty, refused addresses)', async () => {
      const byUrl = await api('POST', '/services', {
        id: 'remote',
        adapter: 'openapi',
        url: `${upstream.url}/spec.json`,
      });
      expect(byUrl).toMatchObject({
        status: 201,
        body: { id: 'remote', source: `${upstream.url}/spec.json` },
      });
      expectError(
        await api('POST', '/services', { id: 'r2', adapter: 'openapi', url: `${upstream.url}/missing` }),
        502,
        'upstream_error',
      );
      expectError(
        await api('POST', '/services', { id: 'r2', adapter: 'openapi', url: `${upstream.url}/empty` }),
        400,
        'invalid_request',
      );
      expectError(
        await api('POST', '/services', { id: 'r2', adapter: 'openapi', url: 'http://169.254.169.254/' }),
        403,
        'forbidden',
      );
      expectError(
        await api('POST', '/services', { id: 'r2', adapter: 'openapi', url: 'http://[::1]:1/' }),
        403,
        'forbidden',
      );
      expectError(
        await api('POST', '/services', { id: 'r2', adapter: 'openapi', url: 'ftp://x/' }),
        400,
        'invalid_request',
      );
      expectError(
        await api('POST', '/services', { id: 'r2', adapter: 'openapi', url: `${upstream.url}/big.json` }),
        413,
        'payload_too_large',
      );
      expectError(
        await api('POST', '/services', { id: 'r2', adapter: 'openapi', url: `${upstream.url}/stall` }),
        504,
        'timeout',
      );
      // The first hop is allowed (127.0.0.1), the redirect to the metadata address is not.
      expectError(
        await api('POST', '/services', {
          id: 'r2',
          adapter: 'openapi',
          url: `${upstream.url}/redirect-metadata`,
        }),
        403,
        'forbidden',
      );
      expectError(await api('GET', '/services/r2'), 404, 'not_found');
      expect((await api('DELETE', '/services/remote')).status).toBe(204);
    });

    it('lists with filters and pagination', async () => {
      await api('POST', '/services', { id: 'shop2', adapter: 'openapi', definition: spec });
      const all = await api('GET', '/services');
      expect(all.body.items.map((s: { id: string }) => s.id)).toEqual(
        expect.arrayContaining(['shop', 'shop2']),
      );
      expect((await api('GET', '/services?query=SHOP2')).body.items.map((s: { id: string }) => s.id)).toEqual(
        ['shop2'],
      );
      expect((await api('GET', '/services?enabled=true')).body.items).toEqual([]);
      expect((await api('GET', '/services?adapter=nope')).body.items).toEqual([]);
      const first = await api('GET', '/services?limit=1');
      expect(first.body).toMatchObject({ hasMore: true, items: [expect.any(Object)] });
      const second = await api(
        'GET',
        `/services?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      );
      expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
      expectError(await api('GET', '/services?enabled=yes'), 400, 'invalid_request');
      expectError(await api('GET', '/services?limit=2.5'), 400, 'invalid_request');
      expect((await api('GET', '/services?limit=1000')).status).toBe(200);
      expect((await api('DELETE', '/services/shop2')).status).toBe(204);
    });

    it('reads and patches config and secrets with JSON Patch, never returning secret values', async () => {
      const detail = await api('GET', '/services/shop');
      expect(detail.body).toMatchObject({
        id: 'shop',
        toolCount: 2,
        configSchema: expect.any(Object),
        secretsSchema: expect.any(Object),
      });
      expect((await api('GET', '/services/shop/config/schema')).body).toEqual(detail.body.configSchema);
      expect((await api('GET', '/services/shop/secrets/schema')).body).toEqual(detail.body.secretsSchema);
      const patched = await api('PATCH', '/services/shop/config', [
        { op: 'add', path: '/timeoutMs', value: 5000 },
      ]);
      expect(patched).toMatchObject({ status: 200, body: { config: { timeoutMs: 5000 } } });
      expect((await api('GET', '/services/shop/config')).body.config).toMatchObject({ timeoutMs: 5000 });
      expectError(
        await api('PATCH', '/services/shop/config', [{ op: 'add', path: '/timeoutMs', value: 'soon' }]),
        400,
        'invalid_request',
      );
      const secret = await api('PATCH', '/services/shop/secrets', [
        { op: 'add', path: '/shopKey', value: 'hush' },
      ]);
      expect(secret.body).toEqual({ updated: true });
      const present = await api('GET', '/services/shop/secrets');
      expect(present.body).toEqual({ present: ['/shopKey'] });
      expect(present.text).not.toContain('hush');
      expectError(await api('GET', '/services/nope/config'), 404, 'not_found');
    });

    it('enables and disables strictly, updates and deletes', async () => {
      expectError(await api('POST', '/services/shop/enabled', { enabled: 1 }), 400, 'invalid_request');
      expect((await api('POST', '/services/shop/enabled', { enabled: true })).body).toMatchObject({
        enabled: true,
      });
      const same = await api('PATCH', '/services/shop', { definition: spec });
      expect(same).toMatchObject({ status: 200, body: { id: 'shop', enabled: true } });
      const changed = JSON.parse(spec);
      changed.info.title = 'Shop v2';
      const updated = await api('PATCH', '/services/shop', { definition: JSON.stringify(changed) });
      expect(updated).toMatchObject({ status: 200, body: { name: 'Shop v2', enabled: false } });
      const byUrl = await api('PATCH', '/services/shop', { url: `${upstream.url}/spec.json` });
      expect(byUrl).toMatchObject({
        status: 200,
        body: { name: 'Shop', source: `${upstream.url}/spec.json` },
      });
      expectError(
        await api('PATCH', '/services/shop', { url: 'http://10.0.0.1/spec.json' }),
        403,
        'forbidden',
      );
      expectError(await api('PATCH', '/services/shop', {}), 400, 'invalid_request');
      expectError(await api('PATCH', '/services/nope', { definition: spec }), 404, 'not_found');
      expectError(
        await api('PATCH', '/services/shop', { definition: spec, name: 'x' }),
        400,
        'invalid_request',
      );
      expectError(
        await api('PATCH', '/services/shop', { definition: spec, url: `${upstream.url}/spec.json` }),
        400,
        'invalid_request',
      );
      expect((await api('POST', '/services/shop/enabled', { enabled: true })).status).toBe(200);
    });

    it('refuses bad secrets patches with 400, storing nothing', async () => {
      expectError(
        await api('PATCH', '/services/shop/secrets', [{ op: 'replace', path: '/shopKey', value: 42 }]),
        400,
        'invalid_request',
      );
      expectError(await api('PATCH', '/services/shop/secrets', { shopKey: 'x' }), 400, 'invalid_request');
      expectError(
        await api('PATCH', '/services/shop/secrets', [{ op: 'remove', path: '/absent' }]),
        400,
        'invalid_request',
      );
      expect((await api('GET', '/services/shop/secrets')).body).toEqual({ present: ['/shopKey'] });
    });

    it('answers 404 on every route of an unknown service', async () => {
      await expectAllNotFound(api, [
        ['GET', '/services/nope'],
        ['DELETE', '/services/nope'],
        ['POST', '/services/nope/enabled', { enabled: true }],
        ['GET', '/services/nope/config'],
        ['PATCH', '/services/nope/config', []],
        ['GET', '/services/nope/secrets'],
        ['PATCH', '/services/nope/secrets', []],
        ['GET', '/services/nope/config/schema'],
        ['GET', '/services/nope/secrets/schema'],
      ]);
    });

    it('answers 502 when hydrating a service fails and leaves it disabled', async () => {
      const installed = await api('POST', '/services', {
        id: 'fragile',
        adapter: 'flaky',
        definition: 'one',
      });
      expect(installed).toMatchObject({
        status: 201,
        body: { id: 'fragile', name: 'Flaky one', enabled: false },
      });
      const enabled = await api('POST', '/services/fragile/enabled', { enabled: true });
      expectError(enabled, 502, 'upstream_error');
      expect(enabled.body.error).toContain('the flaky backend refused to connect');
      expect((await api('GET', '/services/fragile')).body).toMatchObject({ enabled: false });
      expect((await api('DELETE', '/services/fragile')).status).toBe(204);
    });
  });

  describe('tools and environment', () => {
    it('lists tools with filters, no schemas, and effectivelyEnabled', async () => {
      const tools = await api('GET', '/tools?serviceId=shop');
      expect(tools.body.items).toEqual([
        expect.objectContaining({
          serviceId: 'shop',
          id: 'getUser',
          enabled: true,
          effectivelyEnabled: true,
        }),
        expect.objectContaining({ serviceId: 'shop', id: 'listOrders' }),
      ]);
      expect(tools.body.items[0]).not.toHaveProperty('inputSchema');
      expect((await api('GET', '/tools?query=orders')).body.items.map((t: { id: string }) => t.id)).toEqual([
        'listOrders',
      ]);
      expectError(await api('GET', '/tools?serviceId=nope'), 404, 'not_found');
      expectError(await api('GET', '/tools?enabled=maybe'), 400, 'invalid_request');
    });

    it('shows a tool with schemas and Markdown docs, and toggles it; the catalog version moves with the toggle', async () => {
      const versionOf = async () => {
        const answer = await api('GET', '/tools/version');
        expect(answer.status).toBe(200);
        expect(Object.keys(answer.body)).toEqual(['version']);
        return answer.body.version as string;
      };
      const before = await versionOf();
      // Opaque: a digest of the host's state, not its revision or adapters.
      expect(before).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(await versionOf()).toBe(before);
      const tool = await api('GET', '/tools/shop/getUser');
      expect(tool.body).toMatchObject({
        id: 'getUser',
        inputSchema: expect.any(Object),
        outputSchema: expect.any(Object),
      });
      const docs = await api('GET', '/tools/shop/getUser/docs');
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-type')).toContain('text/markdown');
      expect(docs.text).toContain('cyrnel.services.shop.tools.getUser.invoke');
      const off = await api('POST', '/tools/shop/getUser/enabled', { enabled: false });
      expect(off.body).toMatchObject({ enabled: false, effectivelyEnabled: false });
      expect((await api('GET', '/tools?enabled=false')).body.items.map((t: { id: string }) => t.id)).toEqual([
        'getUser',
      ]);
      const disabled = await versionOf();
      expect(disabled).not.toBe(before);
      expect((await api('POST', '/tools/shop/getUser/enabled', { enabled: true })).body.enabled).toBe(true);
      expect(await versionOf()).not.toBe(disabled);
      // Without a key it is refused, as every route but /health.
      expect((await apiClient(server.url)('GET', '/tools/version')).status).toBe(401);
      expectError(await api('GET', '/tools/shop/nope'), 404, 'not_found');
      expectError(
        await api('POST', '/tools/shop/getUser/enabled', { enabled: null }),
        400,
        'invalid_request',
      );
    });

    it('answers 404 for unknown tools and 503 for docs while no environment is active', async () => {
      expectError(await api('GET', '/tools/shop/nope/docs'), 404, 'not_found');
      expectError(await api('GET', '/tools/nope/getUser/docs'), 404, 'not_found');
      expectError(await api('POST', '/tools/shop/nope/enabled', { enabled: true }), 404, 'not_found');
      expectError(await api('POST', '/tools/nope/getUser/enabled', { enabled: true }), 404, 'not_found');
      expect((await api('POST', '/modules/typescript-ivm/enabled', { enabled: false })).status).toBe(200);
      try {
        expectError(await api('GET', '/tools/shop/getUser/docs'), 503, 'unavailable');
      } finally {
        expect((await api('POST', '/modules/typescript-ivm/enabled', { enabled: true })).body).toMatchObject({
          status: 'active',
        });
      }
      expect((await api('GET', '/tools/shop/getUser/docs')).status).toBe(200);
    });

    it('serves the environment docs as Markdown and the types as text', async () => {
      const docs = await api('GET', '/environment/docs');
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-type')).toContain('text/markdown');
      expect(docs.text.length).toBeGreaterThan(0);
      const types = await api('GET', '/environment/types');
      expect(types.headers.get('content-type')).toContain('text/plain');
      expect(types.text).toContain('declare const cyrnel');
      expect(types.text).toContain('getUser');
    });

    it('deletes a service with its tools', async () => {
      expect((await api('DELETE', '/services/shop')).status).toBe(204);
      expectError(await api('GET', '/services/shop'), 404, 'not_found');
      expectError(await api('GET', '/tools/shop/getUser'), 404, 'not_found');
      expectError(await api('DELETE', '/services/shop'), 404, 'not_found');
    });
  });
});
