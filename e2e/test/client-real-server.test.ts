import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CyrnelClient, CyrnelHttpError, CyrnelProcessError, createClient } from '@cyrnel/client';
import type { ProcessEvent } from '@cyrnel/sdk/api';
import { type RunningServer, startServer } from '@cyrnel/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startWireServer, type WireServer } from '../../packages/client/test/wire-server';

// A program that keeps waiting: a pending timer (one waiting on nothing is ended at once).
const WAITS = 'await new Promise((resolve) => setTimeout(resolve, 60_000))';

// A tiny upstream API the installed service calls, and the document describing it.
function petsDocument(baseUrl: string) {
  return {
    openapi: '3.0.3',
    info: { title: 'Pets', version: '1.0.0', description: 'A tiny pet API' },
    servers: [{ url: baseUrl }],
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    security: [{ key: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List pets',
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array' } } } },
          },
        },
      },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          summary: 'Get a pet',
          parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
          },
        },
      },
    },
  };
}

// A custom adapter module for the modules directory: schemas to read, nothing to call.
const GREETER_CONFIG_SCHEMA = {
  type: 'object',
  properties: { greeting: { type: 'string', default: 'hi' } },
  additionalProperties: false,
};
const GREETER_SECRETS_SCHEMA = {
  type: 'object',
  properties: { token: { type: 'string' } },
  additionalProperties: false,
};
const GREETER_MANIFEST = {
  id: 'greeter',
  name: 'Greeter',
  description: 'a custom adapter of the client tests',
  type: 'adapter',
  main: 'index.mjs',
  version: '1.0.0',
};
const GREETER_SOURCE = `export default {
  configSchema: ${JSON.stringify(GREETER_CONFIG_SCHEMA)},
  secretsSchema: ${JSON.stringify(GREETER_SECRETS_SCHEMA)},
  instantiate() {
    return {
      async setup() {},
      async teardown() {},
      async generateDefinition() {
        return { name: 'Greeter', description: '', configSchema: {}, secretsSchema: {}, adapterDomain: {}, tools: [] };
      },
      async hydrateService() {},
      async dehydrateService() {},
      async invoke() { return {}; },
    };
  },
};
`;

const PETS = [
  { id: 1, name: 'Rex' },
  { id: 2, name: 'Tom' },
];

let upstream: WireServer;
let server: RunningServer;
let dataDir: string;
let client: CyrnelClient;

beforeAll(async () => {
  upstream = await startWireServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/openapi.json') return sendJson(res, 200, petsDocument(upstream.baseUrl));
    if (path === '/.well-known/registry.json') {
      const hash = createHash('sha256')
        .update(JSON.stringify(petsDocument(upstream.baseUrl)))
        .digest('hex');
      const versions = { '1.0.0': { url: `${upstream.baseUrl}/openapi.json`, hash } };
      return sendJson(res, 200, {
        name: 'Pets registry',
        services: { pets: { adapter: 'openapi', latestVersion: '1.0.0', versions } },
      });
    }
    if (req.headers['x-api-key'] !== 'sekret') return sendJson(res, 401, { message: 'no key' });
    if (path === '/pets') return sendJson(res, 200, PETS);
    const pet = PETS.find((p) => `/pets/${p.id}` === path);
    return pet ? sendJson(res, 200, pet) : sendJson(res, 404, { message: 'no pet' });
  });
  dataDir = await mkdtemp(join(tmpdir(), 'cyrnel-client-'));
  server = await startServer({
    dataDir,
    port: 0,
    allowPrivateUrls: true,
    shutdownTimeoutMs: 1000,
    registries: [upstream.baseUrl],
  });
  client = createClient({ baseUrl: server.url });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('createClient against the real server', () => {
  it('answers health and lists the built-in modules', async () => {
    expect(await client.health()).toEqual({ status: 'ok' });
    expect(await client.openapi()).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'cyrnel', version: '0.1.0' },
    });
    const ids: string[] = [];
    for await (const module of client.modules.iterate({ isBuiltin: true, limit: 1 })) ids.push(module.id);
    expect(ids.sort()).toEqual(['mcp', 'openapi', 'typescript-ivm']);
    expect((await client.modules.get('openapi')).configSchema).toBeTypeOf('object');
  });

  it('installs a service by URL, sets secrets, enables it and runs code calling two tools', async () => {
    const installed = await client.services.install({
      id: 'pets',
      adapter: 'openapi',
      url: `${upstream.baseUrl}/openapi.json`,
    });
    expect(installed).toMatchObject({ id: 'pets', name: 'Pets', enabled: false, toolCount: 2 });
    expect(
      await client.services.patchSecrets('pets', [{ op: 'add', path: '/key', value: 'sekret' }]),
    ).toEqual({
      updated: true,
    });
    expect(await client.services.getSecrets('pets')).toEqual({ present: ['/key'] });
    expect((await client.services.getConfig('pets')).config).toBeTypeOf('object');
    expect((await client.services.setEnabled('pets', true)).enabled).toBe(true);

    const tools: string[] = [];
    for await (const tool of client.tools.iterate({ serviceId: 'pets' })) tools.push(tool.id);
    expect(tools.sort()).toEqual(['getPet', 'listPets']);
    expect(await client.tools.docs('pets', 'getPet')).toContain('cyrnel.services.pets.tools.getPet.invoke');
    expect(await client.environment.types()).toContain('declare const cyrnel');
    expect((await client.environment.docs()).length).toBeGreaterThan(100);

    const result = await client.processes.run(
      `const list = await cyrnel.services.pets.tools.listPets.invoke({ query: { limit: 2 } });
       const pet = await cyrnel.services.pets.tools.getPet.invoke({ path: { petId: list.body[1].id } });
       console.log('fetched', pet.status);
       cyrnel.output({ name: pet.body.name });`,
      { ref: 'two-tools', throwOnFailure: true },
    );
    expect(result).toMatchObject({ exitState: 'success', output: { name: 'Tom' }, stdout: 'fetched 200\n' });
    const calls = await client.processes.calls(result.id);
    expect(calls.items.map((c) => [c.toolId, c.ok])).toEqual([
      ['listPets', true],
      ['getPet', true],
    ]);
    expect(upstream.seen.filter((r) => r.url.startsWith('/pets')).map((r) => r.url)).toEqual([
      '/pets?limit=2',
      '/pets/2',
    ]);
  });

  it("reads the service's config and secrets schemas and one tool with its schemas", async () => {
    const config = await client.services.configSchema('pets');
    expect(Object.keys(config.properties ?? {}).sort()).toEqual([
      'baseUrl',
      'headers',
      'propagateTrace',
      'serverVariables',
      'timeoutMs',
    ]);
    // The secret is named after the document's security scheme; `headers` carries undeclared ones.
    const secrets = await client.services.secretsSchema('pets');
    expect(Object.keys(secrets.properties ?? {})).toEqual(['key', 'headers']);

    const tool = await client.tools.get('pets', 'getPet');
    expect(tool).toMatchObject({
      serviceId: 'pets',
      id: 'getPet',
      name: 'Get a pet',
      enabled: true,
      effectivelyEnabled: true,
    });
    expect(JSON.stringify(tool.inputSchema)).toContain('petId');
    expect(tool.outputSchema).toBeTypeOf('object');
  });

  it('re-runs a finished process only with force, replacing its results', async () => {
    const first = await client.processes.run(
      `const list = await cyrnel.services.pets.tools.listPets.invoke({ query: { limit: 1 } });
       console.log('listed', list.body.length);
       cyrnel.output({ count: list.body.length });`,
      { ref: 'rerun', throwOnFailure: true },
    );
    expect(first).toMatchObject({ exitState: 'success', stdout: 'listed 2\n' });
    const seenBefore = upstream.seen.filter((r) => r.url === '/pets?limit=1').length;

    await expect(client.processes.start(first.id)).rejects.toMatchObject({ status: 409, code: 'conflict' });
    const restarted = await client.processes.start(first.id, { force: true });
    expect(restarted.id).toBe(first.id);
    expect(['queued', 'running', 'idle']).toContain(restarted.state);
    let exit: ProcessEvent | undefined;
    for await (const event of client.processes.events(first.id)) exit = event;
    expect(exit).toEqual({ type: 'exit', data: { exitState: 'success', error: null, errorReason: null } });

    // It really ran again: the upstream got a second call, and the results are the new run's.
    expect(upstream.seen.filter((r) => r.url === '/pets?limit=1').length).toBe(seenBefore + 1);
    expect(await client.processes.stdout(first.id)).toBe('listed 2\n');
    expect(await client.processes.output(first.id)).toEqual({ count: 2 });
    expect((await client.processes.calls(first.id)).items.map((c) => c.toolId)).toEqual(['listPets']);
  });

  it('throws CyrnelProcessError for a failed run when asked, and returns it otherwise', async () => {
    const failed = await client.processes.run('throw new Error("boom")');
    expect(failed.exitState).toBe('failed');
    const error = await client.processes
      .run('throw new Error("boom")', { throwOnFailure: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CyrnelProcessError);
    expect((error as CyrnelProcessError).result.error).toContain('boom');
  });

  it('follows a process through its events, then reads its record, code and outputs', async () => {
    const created = await client.processes.create({
      code: 'console.log("a"); await new Promise((r) => setTimeout(r, 50)); console.error("b"); cyrnel.output({ done: true });',
      ref: 'events',
    });
    const events: ProcessEvent[] = [];
    for await (const event of client.processes.events(created.id)) events.push(event);
    expect(events.at(-1)).toEqual({
      type: 'exit',
      data: { exitState: 'success', error: null, errorReason: null },
    });
    const text = (type: 'stdout' | 'stderr') =>
      events.flatMap((e) => (e.type === type ? [e.data.text] : [])).join('');
    expect([text('stdout'), text('stderr')]).toEqual(['a\n', 'b\n']);
    expect(events.filter((e) => e.type === 'output').map((e) => e.data)).toEqual([{ patch: { done: true } }]);

    // A late subscriber gets the replay of the finished run.
    const replay: ProcessEvent[] = [];
    for await (const event of client.processes.events(created.id)) replay.push(event);
    expect(replay.at(-1)?.type).toBe('exit');

    expect(await client.processes.get(created.id)).toMatchObject({
      state: 'idle',
      exitState: 'success',
      ref: 'events',
    });
    expect(await client.processes.code(created.id)).toContain('console.log("a")');
    expect(await client.processes.stdout(created.id)).toBe('a\n');
    expect(await client.processes.stderr(created.id)).toBe('b\n');
    expect(await client.processes.output(created.id)).toEqual({ done: true });
    const listed = await client.processes.list({ ref: 'events' });
    expect(listed.items.map((p) => p.id)).toEqual([created.id]);
    await client.processes.delete(created.id);
    await expect(client.processes.get(created.id)).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      reason: 'process_not_found',
    });
  });

  it('creates idle, starts, kills and re-runs processes', async () => {
    const idle = await client.processes.create({
      code: WAITS,
      autorun: false,
      timeoutMs: 20_000,
    });
    expect(idle).toMatchObject({ state: 'idle', exitState: null });
    await client.processes.start(idle.id);
    const killed = await client.processes.kill(idle.id);
    expect(['terminating', 'idle']).toContain(killed.state);
    let exit: ProcessEvent | undefined;
    for await (const event of client.processes.events(idle.id)) exit = event;
    expect(exit).toMatchObject({ type: 'exit', data: { exitState: 'canceled' } });
    await expect(client.processes.start(idle.id)).rejects.toMatchObject({ status: 409, code: 'conflict' });
    await expect(client.processes.kill(idle.id)).rejects.toMatchObject({
      status: 409,
      reason: 'process_not_running',
    });
  });

  it('surfaces validation errors with their details, and 204 deletes', async () => {
    const error = await client.services.list({ limit: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CyrnelHttpError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
    const patch = await client.services
      .patchConfig('pets', [{ op: 'add', path: '/timeoutMs', value: 'soon' }])
      .catch((e: unknown) => e);
    expect(patch).toMatchObject({ status: 400, code: 'invalid_request' });
    await expect(client.tools.get('pets', 'nope')).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      reason: 'tool_not_found',
    });
    await client.services.delete('pets');
    expect((await client.services.list()).items.map((s) => s.id)).not.toContain('pets');
  });

  it('reloads the modules directory and manages a custom module: enable, config, secrets, schemas', async () => {
    // A real custom adapter module on disk, found by a rescan.
    const dir = join(dataDir, 'modules', 'greeter');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'module.json'), JSON.stringify(GREETER_MANIFEST));
    await writeFile(join(dir, 'index.mjs'), GREETER_SOURCE);
    const reloaded = await client.modules.reload();
    expect(reloaded).toEqual({ loaded: ['greeter'], skipped: [] });
    expect(await client.modules.get('greeter')).toMatchObject({
      type: 'adapter',
      isBuiltin: false,
      enabled: true,
      status: 'active',
    });

    expect(await client.modules.configSchema('greeter')).toEqual(GREETER_CONFIG_SCHEMA);
    expect(await client.modules.secretsSchema('greeter')).toEqual(GREETER_SECRETS_SCHEMA);
    expect(await client.modules.getConfig('greeter')).toEqual({ config: { greeting: 'hi' } });
    expect(
      await client.modules.patchConfig('greeter', [{ op: 'replace', path: '/greeting', value: 'hello' }]),
    ).toEqual({ config: { greeting: 'hello' } });
    await expect(
      client.modules.patchConfig('greeter', [{ op: 'add', path: '/greeting', value: 42 }]),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    expect(await client.modules.getConfig('greeter')).toEqual({ config: { greeting: 'hello' } });

    expect(await client.modules.getSecrets('greeter')).toEqual({ present: [] });
    expect(
      await client.modules.patchSecrets('greeter', [{ op: 'add', path: '/token', value: 'module-sekret' }]),
    ).toEqual({ updated: true });
    expect(await client.modules.getSecrets('greeter')).toEqual({ present: ['/token'] });

    expect(await client.modules.setEnabled('greeter', false)).toMatchObject({
      enabled: false,
      status: 'inactive',
    });
    expect(await client.modules.setEnabled('greeter', true)).toMatchObject({
      enabled: true,
      status: 'active',
    });
    expect(JSON.stringify(await client.modules.get('greeter'))).not.toContain('module-sekret');
    await expect(client.modules.setEnabled('nope', true)).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      reason: 'module_not_found',
    });
  });

  it('browses the configured registry, installs and updates from it, and reads reasons of refusals', async () => {
    const { items } = await client.registries.list();
    expect(items).toEqual([
      expect.objectContaining({ name: 'Pets registry', serviceCount: 1, moduleCount: 0 }),
    ]);
    const services = (await client.registries.services()).items;
    expect(services.map((entry) => [entry.name, entry.adapter, entry.versions])).toEqual([
      ['pets', 'openapi', ['1.0.0']],
    ]);
    expect((await client.registries.modules()).items).toEqual([]);
    const installed = await client.services.installFromRegistry({ source: 'pets', id: 'registryPets' });
    expect(installed).toMatchObject({
      id: 'registryPets',
      toolCount: 2,
      registry: { name: 'pets', version: '1.0.0' },
    });
    expect(await client.services.updateFromRegistry('registryPets')).toMatchObject({ updated: false });
    const refusal = await client.modules.update('openapi').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CyrnelHttpError);
    expect(refusal).toMatchObject({ status: 409, code: 'conflict', reason: 'module_builtin' });
    const missing = await client.modules
      .install({ source: 'Not A Package' })
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 400, reason: 'invalid_request' });
    // An OpenAPI service cannot list its tools again: only adapters with refreshDefinition can.
    const noRefresh = await client.services.refresh('registryPets').catch((error: unknown) => error);
    expect(noRefresh).toMatchObject({ status: 409, code: 'conflict', reason: 'refresh_not_supported' });
    await client.services.delete('registryPets');
  });

  it('is refused without the API key when the server requires one', async () => {
    const keyed = await startServer({ dataDir: join(dataDir, 'keyed'), port: 0, apiKey: 'the-key' });
    try {
      await expect(createClient({ baseUrl: keyed.url }).services.list()).rejects.toMatchObject({
        status: 401,
        code: 'unauthorized',
        reason: 'unauthorized',
      });
      expect(await createClient({ baseUrl: keyed.url }).health()).toEqual({ status: 'ok' });
      expect((await createClient({ baseUrl: keyed.url, apiKey: 'the-key' }).services.list()).items).toEqual(
        [],
      );
    } finally {
      await keyed.close();
    }
  });
});
