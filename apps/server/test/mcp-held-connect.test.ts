import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HeldMcpServer, startHeldMcpServer } from './held-mcp-server';
import { useServer } from './helpers';

const KEY = 'mcp-held-connect-admin';

/** Resolves once `ready()` holds, checking every 10 ms (fails after 30 s, saying what it waited for). */
async function until(what: string, ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`waited 30 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// A slow MCP server delays only what waits for its answer: while one of its connections (or a
// listing of its tools) waits for `initialize`, the service's lifecycle and its other connections
// go on. The server holds `initialize` until the test releases it, so each assertion is an order
// (this finished while that was still held), never a duration.
describe('an MCP server slow to initialize holds no lock of its service', () => {
  const { api } = useServer({ apiKey: KEY, urlAllowCidrs: ['127.0.0.1/32'] });
  let slow: HeldMcpServer;
  let other: HeldMcpServer;

  beforeAll(async () => {
    slow = await startHeldMcpServer('slow');
    other = await startHeldMcpServer('other');
  });
  afterAll(async () => {
    await slow?.close();
    await other?.close();
  });

  const install = async (id: string) => {
    const installed = await api('POST', '/services', {
      id,
      adapter: 'mcp',
      definition: JSON.stringify({ transport: 'http', url: slow.url }),
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.body.toolCount).toBe(1);
    for (const name of ['first', 'second']) {
      const made = await api('POST', `/services/${id}/connections`, { name, secrets: {} });
      expect(made.status, made.text).toBe(201);
    }
  };

  const call = (serviceId: string, connection: string) =>
    api('POST', '/processes', {
      code: `cyrnel.output(await cyrnel.services.${serviceId}.tools.echo.invoke({ said: '${connection}' }));`,
      connections: { [serviceId]: connection },
      wait: true,
      timeoutMs: 60_000,
    });

  it('hydrates another connection, disables and updates the service while a connection waits for initialize', async () => {
    await install('calls');
    slow.hold();
    const before = slow.initializes();
    const first = call('calls', 'first');
    await until('the first connection to send initialize', () => slow.held() === 1);
    // The second connection is hydrated and connects meanwhile: its own initialize arrives.
    const second = call('calls', 'second');
    await until('the second connection to send initialize', () => slow.held() === 2);
    expect(slow.initializes()).toBe(before + 2);
    // The service's lifecycle does not wait for them either.
    const disabled = await api('POST', '/services/calls/enabled', { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.enabled).toBe(false);
    const updated = await api('PATCH', '/services/calls', {
      definition: JSON.stringify({ transport: 'http', url: other.url }),
    });
    expect(updated.status, updated.text).toBe(200);
    expect(slow.held()).toBe(2);
    slow.release();
    // Disabled under them: the waiting calls fail rather than use a server the service left.
    for (const ended of await Promise.all([first, second])) {
      expect(ended.status, ended.text).toBe(201);
      expect(ended.body.exitState).toBe('failed');
    }
    // Enabled again, the service reaches the server of its new definition.
    expect((await api('POST', '/services/calls/enabled', { enabled: true })).status).toBe(200);
    const again = await call('calls', 'first');
    expect(again.body.exitState, again.text).toBe('success');
    expect(again.body.output).toEqual({ said: 'first' });
  }, 90_000);

  it('lists the tools again (refresh) without holding the service: it is disabled meanwhile, and the stale listing is dropped', async () => {
    await install('listed');
    slow.hold();
    const before = slow.initializes();
    const refreshing = api('POST', '/services/listed/refresh');
    await until('the refresh to send initialize', () => slow.initializes() === before + 1);
    const disabled = await api('POST', '/services/listed/enabled', { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.enabled).toBe(false);
    const connection = await api('PATCH', '/services/listed/connections/first', { secrets: {} });
    expect(connection.status, connection.text).toBe(200);
    // The listing of the service as it was is dropped, and the service as it is now listed again.
    await until('the refresh to list the tools again', () => slow.initializes() === before + 2);
    slow.release();
    const refreshed = await refreshing;
    expect(refreshed.status, refreshed.text).toBe(200);
    // Stored as listed after the change: the tools, and the service left disabled.
    expect(refreshed.body.service).toMatchObject({ id: 'listed', enabled: false, toolCount: 1 });
  }, 90_000);

  it('generates an updated definition without holding the service: it is disabled meanwhile, and the update made again', async () => {
    const installed = await api('POST', '/services', {
      id: 'moved',
      adapter: 'mcp',
      definition: JSON.stringify({ transport: 'http', url: other.url }),
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.body.name).toBe('other');
    slow.hold();
    const before = slow.initializes();
    const updating = api('PATCH', '/services/moved', {
      definition: JSON.stringify({ transport: 'http', url: slow.url }),
    });
    await until('the update to send initialize', () => slow.initializes() === before + 1);
    const disabled = await api('POST', '/services/moved/enabled', { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body).toMatchObject({ enabled: false, name: 'other' });
    slow.release();
    const updated = await updating;
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ id: 'moved', name: 'slow', enabled: false, toolCount: 1 });
    // Generated twice: once at the state it was asked at, once after the service was disabled.
    expect(slow.initializes()).toBe(before + 2);
  }, 90_000);
});
