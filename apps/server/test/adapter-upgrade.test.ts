import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, type Json, startTestServer, tempDir, writeModule } from './helpers';

/**
 * A custom adapter in two versions whose `adapterDomain` layouts differ: 1.0.0 keeps a
 * tool's route as `{ route }`, 2.0.0 as `{ target: { path } }` and refuses to hydrate the old
 * layout. A definition is JSON `{ "tools": [...], "legacy"?: true }`; 2.0.0 drops tool `c`, adds
 * `d` and refuses `legacy` definitions.
 */
function versionedAdapter(version: 1 | 2): string {
  return `
const services = new Map();
export default {
  configSchema: { type: 'object' },
  secretsSchema: { type: 'object' },
  instantiate() {
    return {
      async setup() {},
      async teardown() { services.clear(); },
      async generateDefinition(text) {
        const input = JSON.parse(text);
        if (${version} === 2 && input.legacy) throw new Error('legacy definitions are no longer supported');
        const names = ${version} === 2 ? [...input.tools.filter((name) => name !== 'c'), 'd'] : input.tools;
        return {
          name: 'Versioned', description: 'layout ${version}',
          configSchema: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
          secretsSchema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
          adapterDomain: { layout: ${version} },
          tools: names.map((name) => ({
            id: name, name, description: 'tool ' + name, inputSchema: { type: 'object' }, outputSchema: {},
            adapterDomain: ${version} === 2 ? { target: { path: '/' + name } } : { route: '/' + name },
          })),
        };
      },
      async hydrateService(state) {
        if (state.adapterDomain.layout !== ${version}) {
          throw new Error('layout ' + state.adapterDomain.layout + ' is not understood by ${version}.0.0');
        }
        services.set(state.id, state);
      },
      async dehydrateService(id) { services.delete(id); },
      async invoke({ serviceId, toolId }) {
        const state = services.get(serviceId);
        const tool = state?.tools[toolId];
        if (!tool) throw new Error('unknown tool ' + serviceId + '.' + toolId);
        const route = ${version} === 2 ? tool.adapterDomain.target.path : tool.adapterDomain.route;
        return { version: ${version}, route, greeting: state.config.greeting, token: state.secrets.token };
      },
    };
  },
};
`;
}

const manifest = (version: string) => ({
  id: 'versioned',
  name: 'Versioned',
  description: 'an adapter whose adapterDomain layout changes in 2.0.0',
  type: 'adapter',
  main: 'index.mjs',
  version,
});

const CALL_A = `cyrnel.output(await cyrnel.services.svc.tools.a.invoke({}));`;

describe('an adapter upgraded from 1.0.0 to 2.0.0', () => {
  let server: RunningServer;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    dir = await tempDir();
    await writeModule(dir.path, 'versioned', manifest('1.0.0'), versionedAdapter(1));
    server = await startTestServer({ dataDir: dir.path, port: 0, apiKey: 'upgrade-key' });
    api = apiClient(server.url, 'upgrade-key');
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
  });

  const run = async (code: string): Promise<Json> => {
    const result = await api('POST', '/processes', { code, wait: true });
    expect(result.status).toBe(201);
    return result.body;
  };

  it('regenerates its services from their stored text: flags, config and secrets kept', async () => {
    const installed = await api('POST', '/services', {
      id: 'svc',
      adapter: 'versioned',
      definition: JSON.stringify({ tools: ['a', 'b', 'c'] }),
      config: { greeting: 'hi' },
      secrets: { token: 't0ken' },
      enabled: true,
    });
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({
      adapterVersion: '1.0.0',
      registry: null,
      effectivelyEnabled: true,
    });
    const legacy = await api('POST', '/services', {
      id: 'old',
      adapter: 'versioned',
      definition: JSON.stringify({ tools: ['a'], legacy: true }),
      config: { greeting: 'yo' },
      secrets: { token: 'x' },
      enabled: true,
    });
    expect(legacy.status).toBe(201);
    expect((await api('POST', '/tools/svc/b/enabled', { enabled: false })).status).toBe(200);
    const before = await run(CALL_A);
    // The adapter echoes its secret: it reached the adapter, and the redactor keeps it out of the
    // process's output.
    expect(before).toMatchObject({
      exitState: 'success',
      output: { version: 1, route: '/a', greeting: 'hi', token: '***' },
    });

    await writeModule(dir.path, 'versioned', manifest('2.0.0'), versionedAdapter(2));
    const reloaded = await api('POST', '/modules/reload');
    expect(reloaded.status).toBe(200);
    expect((await api('GET', '/modules/versioned')).body).toMatchObject({
      version: '2.0.0',
      status: 'active',
    });

    const service = await api('GET', '/services/svc');
    expect(service.body).toMatchObject({
      enabled: true,
      effectivelyEnabled: true,
      error: null,
      adapterVersion: '2.0.0',
      description: 'layout 2',
      toolCount: 3,
    });
    const tools = await api('GET', '/tools?serviceId=svc');
    expect(tools.body.items.map((tool: Json) => [tool.id, tool.enabled])).toEqual([
      ['a', true],
      ['b', false],
      ['d', true],
    ]);
    const after = await run(CALL_A);
    expect(after).toMatchObject({
      exitState: 'success',
      output: { version: 2, route: '/a', greeting: 'hi', token: '***' },
    });
    expect((await api('GET', '/services/svc/secrets')).body).toEqual({ present: ['/token'] });
    expect((await api('GET', '/services/svc/config')).body).toEqual({ config: { greeting: 'hi' } });
  });

  it('leaves a service the new version refuses disabled, with the reason', async () => {
    const old = await api('GET', '/services/old');
    expect(old.body).toMatchObject({ enabled: false, effectivelyEnabled: false, adapterVersion: '1.0.0' });
    expect(old.body.error).toContain('legacy definitions are no longer supported');
    const failed = await api('GET', '/services?failed=true');
    expect(failed.body.items.map((item: Json) => item.id)).toEqual(['old']);
    // Enabling tries again, and answers why it cannot.
    const enable = await api('POST', '/services/old/enabled', { enabled: true });
    expect(enable.status).toBe(502);
    expect(enable.body).toMatchObject({ code: 'upstream_error', reason: 'service_regeneration_failed' });
    expect(enable.body.error).toContain('legacy definitions are no longer supported');
    const discovered = await run(
      `cyrnel.output({ ids: (await cyrnel.discover.tools({})).map((tool) => tool.serviceId + '.' + tool.toolId) });`,
    );
    expect(discovered.output).toEqual({ ids: ['svc.a', 'svc.d'] });
    // A definition the new version accepts brings it back.
    const fixed = await api('PATCH', '/services/old', { definition: JSON.stringify({ tools: ['a'] }) });
    expect(fixed.body).toMatchObject({ adapterVersion: '2.0.0', enabled: false });
    const enabled = await api('POST', '/services/old/enabled', { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, effectivelyEnabled: true, error: null });
  });

  it('regenerates again on restart when the code changed while the server was down', async () => {
    await server.close();
    await writeModule(dir.path, 'versioned', manifest('1.0.0'), versionedAdapter(1));
    server = await startTestServer({ dataDir: dir.path, port: 0, apiKey: 'upgrade-key' });
    api = apiClient(server.url, 'upgrade-key');
    expect((await api('GET', '/services/svc')).body).toMatchObject({
      adapterVersion: '1.0.0',
      effectivelyEnabled: true,
      toolCount: 3,
    });
    const tools = await api('GET', '/tools?serviceId=svc');
    expect(tools.body.items.map((tool: Json) => [tool.id, tool.enabled])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
    ]);
    expect(await run(CALL_A)).toMatchObject({ output: { version: 1, route: '/a', greeting: 'hi' } });
  });
});
