import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/create-logger';
import type { RunningServer } from '../src/index';
import { adapterManifest, apiClient, type Json, startTestServer, tempDir, writeModule } from './helpers';

const KEY = 'redaction-admin-key';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = join(ROOT, 'packages/adapter-mcp/test/fixtures/fixture-server.mjs');
/** The secrets of the test: a custom adapter's service, an MCP server's, a module's. */
const LEAKY_TOKEN = 'leaky-token-5d1c2b';
const MCP_TOKEN = 'mcp-token-94ae71';
const MODULE_TOKEN = 'module-token-0c8f3e';
/** The definition's placeholder of the service's secret `token`. */
const PLACEHOLDER = ['$', '{secrets.token}'].join('');

/**
 * A custom adapter that leaks: its module logs its own secret at setup, and each call logs the
 * service's token, prints it in the error it throws, and in a failing call's details.
 */
const LEAKY_ADAPTER = `
let log;
let moduleToken;
const services = new Map();
export default {
  configSchema: { type: 'object' },
  secretsSchema: { type: 'object', properties: { token: { type: 'string' } } },
  instantiate() {
    return {
      async setup(context) {
        log = context.logger;
        moduleToken = context.secrets.token;
        if (moduleToken.startsWith('fail-')) throw new Error('cannot start with ' + moduleToken);
        log.info('leaky module set up with ' + moduleToken);
      },
      async teardown() {},
      async generateDefinition(text, context) {
        if (text === 'refuse') throw new Error('the backend refused token ' + context.secrets.token);
        return {
          name: 'Leaky', description: 'leaks its token', configSchema: { type: 'object' },
          secretsSchema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
          tools: [{ id: 'fail', name: 'fail', description: 'fails', inputSchema: { type: 'object' }, outputSchema: {}, adapterDomain: {} }],
          adapterDomain: {},
        };
      },
      async hydrateService(state) { services.set(state.id, state); },
      async dehydrateService(id) { services.delete(id); },
      async invoke({ serviceId }) {
        const token = services.get(serviceId).secrets.token;
        log.warn('calling the backend', { token, moduleToken });
        throw new Error('the backend refused token ' + token + ' (module ' + moduleToken + ')');
      },
    };
  },
};
`;

describe('secrets never leave the host', () => {
  let server: RunningServer;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;
  const lines: string[] = [];

  beforeAll(async () => {
    dir = await tempDir();
    await writeModule(dir.path, 'leaky', adapterManifest('leaky'), LEAKY_ADAPTER);
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
    });
    api = apiClient(server.url, KEY);
    expect(
      (await api('PATCH', '/modules/leaky/secrets', [{ op: 'add', path: '/token', value: MODULE_TOKEN }]))
        .status,
    ).toBe(200);
    expect(
      (
        await api('PATCH', '/modules/mcp/config', [
          { op: 'add', path: '/allowedCommands', value: [process.execPath] },
        ])
      ).status,
    ).toBe(200);
    const leaky = await api('POST', '/services', {
      id: 'leaky',
      adapter: 'leaky',
      definition: 'x',
      secrets: { token: LEAKY_TOKEN },
      enabled: true,
    });
    expect(leaky.status).toBe(201);
    const mcp = await api('POST', '/services', {
      id: 'fx',
      adapter: 'mcp',
      definition: JSON.stringify({
        transport: 'stdio',
        command: process.execPath,
        args: [FIXTURE],
        env: { FIXTURE_TOKEN: PLACEHOLDER },
      }),
      secrets: { token: MCP_TOKEN },
      enabled: true,
    });
    expect(mcp.status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
  });

  it("keeps an adapter's thrown error, an MCP server's stderr and a module's log lines from the agent, the record, the events and the log", async () => {
    const code = `
      const seen = [];
      try { await cyrnel.services.leaky.tools.fail.invoke({}); } catch (error) { seen.push(error.reason, error.message); }
      try { await cyrnel.services.fx.tools.crash.invoke({}); } catch (error) { seen.push(error.reason, error.message); }
      console.log(seen.join(' | '));
      cyrnel.output({ seen });
      throw new Error(seen.join(' | '));
    `;
    const created = await api('POST', '/processes', { code, wait: true, timeoutMs: 60_000 });
    expect(created.status).toBe(201);
    const record = created.body as Json;
    expect(record.exitState).toBe('failed');
    // The agent saw the errors, their reasons, and no secret in them.
    expect(record.output.seen).toEqual([
      'upstream_failed',
      expect.stringContaining('the backend refused token *** (module ***)'),
      'upstream_crashed',
      expect.stringContaining('exited (code 3) during the call'),
    ]);
    const events = await api('GET', `/processes/${record.id}/events`, undefined, {
      accept: 'text/event-stream',
    });
    const fetched = await api('GET', `/processes/${record.id}`);
    // The MCP server's stderr reached the log (redacted), and only the log.
    await expect.poll(() => lines.some((line) => line.includes('MCP server stderr'))).toBe(true);
    const log = lines.join('');
    expect(log).toContain('cannot reach the backend with token ***');
    expect(log).toContain('leaky module set up with ***');
    for (const text of [JSON.stringify(record), JSON.stringify(fetched.body), events.text, log]) {
      for (const secret of [LEAKY_TOKEN, MCP_TOKEN, MODULE_TOKEN, KEY]) expect(text).not.toContain(secret);
    }
  });

  it("answers HTTP errors without the secrets in their messages (an install request's own secret too)", async () => {
    const token = 'install-token-6b2e90';
    const refusedInstall = await api('POST', '/services', {
      id: 'leaky3',
      adapter: 'leaky',
      definition: 'refuse',
      secrets: { token },
    });
    expect(refusedInstall.status).toBeGreaterThanOrEqual(400);
    expect(refusedInstall.body).toMatchObject({
      error: expect.stringContaining('the backend refused token ***'),
    });
    expect(refusedInstall.text).not.toContain(token);
    // A module that fails to start with its new secret: the answer and its status show no secret.
    const failing = 'fail-module-token-77aa01';
    const patched = await api('PATCH', '/modules/leaky/secrets', [
      { op: 'replace', path: '/token', value: failing },
    ]);
    expect(patched.status).toBeGreaterThanOrEqual(400);
    expect(patched.text).toContain('cannot start with ***');
    const status = await api('GET', '/modules/leaky');
    expect(status.text).toContain('cannot start with ***');
    expect(patched.text + status.text + lines.join('')).not.toContain(failing);
    // The service's hydration error is shown by the service record and the refusals.
    const refused = await api('POST', '/services', {
      id: 'leaky2',
      adapter: 'mcp',
      definition: JSON.stringify({
        transport: 'stdio',
        command: process.execPath,
        args: ['-e', `console.error(process.env.T); process.exit(2)`],
        env: { T: PLACEHOLDER },
      }),
      secrets: { token: 'never-shown-token-1234' },
    });
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ reason: 'upstream_crashed' });
    expect(JSON.stringify(refused.body)).not.toContain('never-shown-token-1234');
    expect(lines.join('')).not.toContain('never-shown-token-1234');
  });
});
