import { listRoutes, type Route } from '@cyrnel/sdk/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelClient, createClient } from '../src/index';
import { sendJson, startWireServer, type WireServer } from './wire-server';

/** Routes the client deliberately leaves out, by `resource.name`, each with why. None today. */
const NOT_OFFERED: Readonly<Record<string, string>> = {};

const patch = [{ op: 'add', path: '/a', value: 1 }] as const;

/** One call of the client per route, named as the table names the route. */
const CALLS: Readonly<Record<string, (client: CyrnelClient) => Promise<unknown>>> = {
  'meta.health': (c) => c.health(),
  'meta.openapi': (c) => c.openapi(),
  'meta.me': (c) => c.me(),
  'modules.list': (c) => c.modules.list({ enabled: true }),
  'modules.reload': (c) => c.modules.reload(),
  'modules.install': (c) => c.modules.install({ source: '@acme/soap' }),
  'modules.get': (c) => c.modules.get('m/1'),
  'modules.configure': (c) => c.modules.configure('m', { autoUpdate: true }),
  'modules.update': (c) => c.modules.update('m'),
  'modules.setEnabled': (c) => c.modules.setEnabled('m', true),
  'modules.getConfig': (c) => c.modules.getConfig('m'),
  'modules.patchConfig': (c) => c.modules.patchConfig('m', [...patch]),
  'modules.getSecrets': (c) => c.modules.getSecrets('m'),
  'modules.patchSecrets': (c) => c.modules.patchSecrets('m', [...patch]),
  'modules.configSchema': (c) => c.modules.configSchema('m'),
  'modules.secretsSchema': (c) => c.modules.secretsSchema('m'),
  'services.list': (c) => c.services.list(),
  'services.install': (c) => c.services.install({ id: 's', adapter: 'openapi', definition: {} }),
  'services.installFromRegistry': (c) => c.services.installFromRegistry({ source: 'petstore' }),
  'services.updateFromRegistry': (c) => c.services.updateFromRegistry('s'),
  'services.refresh': (c) => c.services.refresh('s'),
  'services.get': (c) => c.services.get('s?x#y'),
  'services.update': (c) => c.services.update('s', { url: 'http://x' }),
  'services.delete': (c) => c.services.delete('s'),
  'services.setEnabled': (c) => c.services.setEnabled('s', false),
  'services.setObserveOutputs': (c) => c.services.setObserveOutputs('s', false),
  'services.getConfig': (c) => c.services.getConfig('s'),
  'services.patchConfig': (c) => c.services.patchConfig('s', [...patch]),
  'services.getSecrets': (c) => c.services.getSecrets('s'),
  'services.patchSecrets': (c) => c.services.patchSecrets('s', [...patch]),
  'services.configSchema': (c) => c.services.configSchema('s'),
  'services.secretsSchema': (c) => c.services.secretsSchema('s'),
  'services.stats': (c) => c.services.stats('s'),
  'services.getPolicy': (c) => c.services.getPolicy('s'),
  'services.setPolicy': (c) => c.services.setPolicy('s', { default: 'ask' }),
  'registries.list': (c) => c.registries.list(),
  'registries.services': (c) => c.registries.services(),
  'registries.modules': (c) => c.registries.modules(),
  'processes.list': (c) => c.processes.list({ state: 'idle' }),
  'processes.create': (c) => c.processes.create({ code: '1' }),
  'processes.get': (c) => c.processes.get(1),
  'processes.delete': (c) => c.processes.delete(1),
  'processes.code': (c) => c.processes.code(1),
  'processes.stdout': (c) => c.processes.stdout(1),
  'processes.stderr': (c) => c.processes.stderr(1),
  'processes.output': (c) => c.processes.output(1),
  'processes.calls': (c) => c.processes.calls(1),
  'processes.events': async (c) => {
    for await (const _ of c.processes.events(1)) {
      // Read to the exit event.
    }
  },
  'processes.start': (c) => c.processes.start(1, { force: true }),
  'processes.kill': (c) => c.processes.kill(1),
  'keys.create': (c) => c.keys.create({ name: 'bot', role: 'agent' }),
  'keys.list': (c) => c.keys.list(),
  'keys.delete': (c) => c.keys.delete('k1'),
  'principals.create': (c) => c.principals.create({ name: 'Ada' }),
  'principals.list': (c) => c.principals.list(),
  'principals.get': (c) => c.principals.get('p1'),
  'principals.delete': (c) => c.principals.delete('p1'),
  'connections.list': (c) => c.connections.list('gh'),
  'connections.create': (c) => c.connections.create('gh', { name: 'work', secrets: { token: 't' } }),
  'connections.get': (c) => c.connections.get('gh', 'work'),
  'connections.update': (c) => c.connections.update('gh', 'work', { secrets: { token: 'u' } }),
  'connections.delete': (c) => c.connections.delete('gh', 'work'),
  'connections.authorize': (c) =>
    c.connections.authorize('gh', 'work', { clientId: 'cyrnel', scopes: ['read'] }),
  'connections.callback': (c) => c.connections.callback({ code: 'c', state: 's' }),
  'tools.list': (c) => c.tools.list({ query: 'issue' }),
  'tools.version': (c) => c.tools.version(),
  'tools.get': (c) => c.tools.get('s', 't'),
  'tools.docs': (c) => c.tools.docs('s', 't'),
  'tools.setEnabled': (c) => c.tools.setEnabled('s', 't', true),
  'approvals.list': (c) => c.approvals.list({ state: 'pending' }),
  'approvals.get': (c) => c.approvals.get('a1'),
  'approvals.decide': (c) => c.approvals.decide('a1', { decision: 'approve', remember: 'process' }),
  'approvals.decidePlan': (c) => c.approvals.decidePlan('p1', { decision: 'deny', note: 'no' }),
  'environment.docs': (c) => c.environment.docs(),
  'environment.types': (c) => c.environment.types({ tools: ['s.t'] }),
  'metrics.text': (c) => c.metrics.text(),
  'logs.list': (c) => c.logs.list({ level: 'warn', processId: 3 }),
};

/** The route of the table a request reached, by its method and path. */
function routeOf(method: string, url: string): { key: string; route: Route } | undefined {
  const path = new URL(url, 'http://x').pathname;
  for (const { resource, name, route } of listRoutes()) {
    const pattern = new RegExp(`^${route.path.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    if (route.method === method && pattern.test(path)) return { key: `${resource}.${name}`, route };
  }
  return undefined;
}

describe('the client', () => {
  let server: WireServer;
  let client: CyrnelClient;
  beforeAll(async () => {
    // Answers every route as its entry says: JSON, text, an event stream, nothing.
    server = await startWireServer((request, res) => {
      const media = routeOf(request.method, request.url)?.route.answer.media;
      if (media === 'none') return res.writeHead(204).end();
      if (media === 'text' || media === 'markdown') return res.writeHead(200).end('text');
      if (media === 'events') {
        const exit = { exitState: 'success', error: null, errorReason: null };
        return res
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end(`event: exit\ndata: ${JSON.stringify(exit)}\n\n`);
      }
      return sendJson(res, media === 'json' ? 200 : 404, { items: [], nextCursor: null, hasMore: false });
    });
    client = createClient({ baseUrl: server.baseUrl });
  });
  afterAll(() => server.close());

  it('offers every route of the table, or says why not', () => {
    const routes = listRoutes().map(({ resource, name }) => `${resource}.${name}`);
    expect(routes.filter((key) => !(key in CALLS) && !(key in NOT_OFFERED))).toEqual([]);
    expect(Object.keys(CALLS).filter((key) => !routes.includes(key) || key in NOT_OFFERED)).toEqual([]);
  });

  it.each(Object.entries(CALLS))('reaches %s through the method of that name', async (key, call) => {
    const before = server.seen.length;
    await call(client);
    const requests = server.seen.slice(before).map((request) => routeOf(request.method, request.url)?.key);
    expect(requests).toEqual([key]);
  });

  it('encodes every path parameter', async () => {
    await client.services.get('s?x#y');
    await client.modules.get('m/1');
    expect(server.seen.slice(-2).map((request) => request.url)).toEqual([
      '/services/s%3Fx%23y',
      '/modules/m%2F1',
    ]);
  });
});
