import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { adapterManifest, apiClient, startTestServer, tempDir, writeModule } from './helpers';

// Values that must never appear in a response, a message or the data directory's files.
const TOKEN = 'ghp_test0123456789abcdef';
const NOTE = 'hunter2-note';

/** A custom adapter whose services require the secrets `api_key` and `region`. */
const KEYED_ADAPTER = `
export default {
  instantiate() {
    return {
      async setup() {},
      async teardown() {},
      async generateDefinition() {
        return {
          name: 'Keyed',
          description: 'needs an API key and a region',
          configSchema: { type: 'object' },
          secretsSchema: {
            type: 'object',
            properties: { api_key: { type: 'string' }, region: { type: 'string' }, note: { type: 'string' } },
            required: ['api_key', 'region'],
            additionalProperties: false,
          },
          tools: [{ id: 'ping', name: 'ping', description: 'answers pong', inputSchema: { type: 'object' }, outputSchema: {}, adapterDomain: {} }],
          adapterDomain: {},
        };
      },
      async hydrateService() {},
      async dehydrateService() {},
      async invoke() {
        return 'pong';
      },
    };
  },
};
`;

/**
 * An upstream answering every request with its method, path and query and its `X-Team` header; the
 * `Authorization` headers it received stay in the test (never in a response, so never in a process
 * record).
 */
async function startEcho(): Promise<{
  url: string;
  seen: string[];
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}> {
  const seen: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    authorizations.push(request.headers.authorization);
    const body = { target: `${request.method} ${request.url}`, team: request.headers['x-team'] ?? null };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    authorizations,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Like GitHub's description: no security schemes; one path key carries a query string. */
function noSchemesSpec(baseUrl: string): Record<string, unknown> {
  const ok = { '200': { description: 'ok', content: { 'application/json': {} } } };
  return {
    openapi: '3.0.3',
    info: { title: 'No schemes', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    paths: {
      '/user': { get: { operationId: 'me', responses: ok } },
      '/uploads?convert={convert}': { post: { operationId: 'upload', responses: ok } },
    },
  };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('service secrets', () => {
  let server: RunningServer;
  let echo: Awaited<ReturnType<typeof startEcho>>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;
  const texts: string[] = [];
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await api(method, path, body);
    texts.push(response.text);
    return response;
  };

  beforeAll(async () => {
    dir = await tempDir();
    echo = await startEcho();
    await writeModule(dir.path, 'keyed', adapterManifest('keyed'), KEYED_ADAPTER);
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: 'secrets-key',
      allowPrivateUrls: true,
    });
    api = apiClient(server.url, 'secrets-key');
  });

  afterAll(async () => {
    await server?.close();
    await echo?.close();
    await dir?.remove();
  });

  it('does say which required secrets are missing when enabling, never a value', async () => {
    expect((await call('POST', '/services', { id: 'k1', adapter: 'keyed', definition: 'x' })).status).toBe(
      201,
    );
    const enable = await call('POST', '/services/k1/enabled', { enabled: true });
    expect(enable.status).toBe(400);
    expect(enable.body).toMatchObject({
      code: 'invalid_request',
      error: "missing secrets 'api_key', 'region'",
      details: [
        { path: '/', message: "must have required property 'api_key'" },
        { path: '/', message: "must have required property 'region'" },
      ],
    });
    expect((await call('GET', '/services/k1')).body).toMatchObject({ enabled: false });

    // A secrets patch is validated whole: it says what is still missing, and stores nothing.
    const partial = await call('PATCH', '/services/k1/secrets', [
      { op: 'add', path: '/note', value: NOTE },
      { op: 'add', path: '/region', value: 'eu' },
    ]);
    expect(partial.status).toBe(400);
    expect(partial.body.error).toBe("missing secret 'api_key'");
    expect((await call('GET', '/services/k1/secrets')).body).toEqual({ present: [] });

    const complete = await call('PATCH', '/services/k1/secrets', [
      { op: 'add', path: '/api_key', value: 'k-1' },
      { op: 'add', path: '/region', value: 'eu' },
    ]);
    expect(complete.status).toBe(200);
    expect((await call('POST', '/services/k1/enabled', { enabled: true })).body).toMatchObject({
      id: 'k1',
      enabled: true,
    });
  });

  it('does say which required secret is missing when installing with enabled: true, storing nothing', async () => {
    const install = await call('POST', '/services', {
      id: 'k2',
      adapter: 'keyed',
      definition: 'x',
      secrets: { region: 'eu', note: NOTE },
      enabled: true,
    });
    expect(install.status).toBe(400);
    expect(install.body).toMatchObject({ code: 'invalid_request', error: "missing secret 'api_key'" });
    expect((await call('GET', '/services/k2')).status).toBe(404);
    const bare = await call('POST', '/services', {
      id: 'k3',
      adapter: 'keyed',
      definition: 'x',
      enabled: true,
    });
    expect(bare.body.error).toBe("missing secrets 'api_key', 'region'");
  });

  it('does refuse an OpenAPI document whose paths is not an object with 400 naming the problem', async () => {
    const refused = await call('POST', '/services', {
      id: 'broken',
      adapter: 'openapi',
      definition: JSON.stringify({ openapi: '3.0.3', info: { title: 'x', version: '1' }, paths: '/pets' }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('paths must be an object of path items, got a string');
  });

  it('does keep a header credential of an openapi service encrypted in its headers secret and send it', async () => {
    const installed = await call('POST', '/services', {
      id: 'gh',
      adapter: 'openapi',
      definition: JSON.stringify(noSchemesSpec(echo.url)),
      config: { headers: { 'X-Team': 'blue' } },
    });
    expect(installed.status).toBe(201);
    expect(Object.keys(installed.body.secretsSchema.properties)).toEqual(['headers']);
    const patched = await call('PATCH', '/services/gh/secrets', [
      { op: 'add', path: '/headers', value: { Authorization: `Bearer ${TOKEN}` } },
    ]);
    expect(patched).toMatchObject({ status: 200, body: { updated: true } });
    expect((await call('GET', '/services/gh/secrets')).body).toEqual({ present: ['/headers/Authorization'] });
    expect((await call('GET', '/services/gh/config')).body.config.headers).toEqual({ 'X-Team': 'blue' });
    expect((await call('POST', '/services/gh/enabled', { enabled: true })).status).toBe(200);

    const result = await call('POST', '/processes', {
      code: `
        const me = await cyrnel.services.gh.tools.me.invoke({});
        const up = await cyrnel.services.gh.tools.upload.invoke({ query: { convert: 'pdf' } });
        cyrnel.output({ team: me.body.team, upload: up.body.target });`,
      wait: true,
    });
    expect(result.body).toMatchObject({
      exitState: 'success',
      output: { team: 'blue', upload: 'POST /uploads?convert=pdf' },
    });
    expect(echo.seen).toEqual(['GET /user', 'POST /uploads?convert=pdf']);
    expect(echo.authorizations).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  it('does never answer a secret value nor store one in plain text', async () => {
    for (const path of [
      '/services',
      '/services/gh',
      '/services/gh/config',
      '/services/k1',
      '/tools?serviceId=gh',
    ])
      await call('GET', path);
    for (const text of texts) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(NOTE);
    }
    for (const file of await filesUnder(dir.path)) {
      const bytes = await readFile(file);
      expect({ file, token: bytes.includes(TOKEN), note: bytes.includes(NOTE) }).toEqual({
        file,
        token: false,
        note: false,
      });
    }
  });
});
