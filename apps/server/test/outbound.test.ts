import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './helpers';

const MARKER = 'config-that-must-not-leak';

/**
 * An upstream on 127.0.0.1 whose `/go` redirects to whatever `target` says (an open redirect) and
 * whose `/spec.json` describes it.
 */
async function startRedirector(): Promise<{
  url: string;
  seen: string[];
  target: { href: string };
  close(): Promise<void>;
}> {
  const seen: string[] = [];
  const target = { href: '' };
  const server: Server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    if (request.url === '/go') return response.writeHead(302, { location: target.href }).end();
    if (request.url === '/spec.json') {
      const address = server.address() as AddressInfo;
      return response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(spec(`http://127.0.0.1:${address.port}`)));
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    target,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const spec = (base: string) => ({
  openapi: '3.0.3',
  info: { title: 'Redirector', version: '1' },
  servers: [{ url: base }],
  paths: {
    '/go': { get: { operationId: 'go', responses: { '200': { description: 'anything' } } } },
    '/ok': { get: { operationId: 'ok', responses: { '200': { description: 'fine' } } } },
  },
});

const CODE = `
const results = {};
for (const tool of ['ok', 'go']) {
  try {
    results[tool] = await cyrnel.services.redirector.tools[tool].invoke({});
  } catch (error) {
    results[tool] = { error: error.message };
  }
}
cyrnel.output(results);
`;

let upstream: Awaited<ReturnType<typeof startRedirector>>;

beforeAll(async () => {
  upstream = await startRedirector();
});

afterAll(async () => {
  await upstream.close();
});

// Both paths of a tool call: made by the sandbox process itself, or by the server.
describe.each([
  { path: 'direct calls', noDirectToolCalls: false },
  { path: 'calls through the server', noDirectToolCalls: true },
])('tool calls and the outbound policy ($path)', ({ noDirectToolCalls }) => {
  describe('with --allow-private-urls', () => {
    const { api, url } = useServer({ allowPrivateUrls: true, noDirectToolCalls });

    it("does refuse a redirect to cyrnel's own API: the call fails, no config leaks", async () => {
      upstream.seen.length = 0;
      const installed = await api('POST', '/services', {
        id: 'redirector',
        adapter: 'openapi',
        definition: JSON.stringify(spec(upstream.url)),
        config: { headers: { 'x-marker': MARKER } },
        enabled: true,
      });
      expect(installed.status).toBe(201);
      upstream.target.href = `${url()}/services/redirector/config`;
      const port = new URL(url()).port;
      const result = await api('POST', '/processes', { code: CODE, wait: true });
      expect(result.body).toMatchObject({ exitState: 'success', output: { ok: { status: 200 } } });
      expect(result.body.output.go.error).toContain(
        `refusing to connect to 127.0.0.1:${port}: that is cyrnel's own API`,
      );
      expect(result.text).not.toContain(MARKER);
      expect(upstream.seen).toEqual(['GET /ok', 'GET /go']);
    });
  });

  describe('without --allow-private-urls', () => {
    const { api } = useServer({ noDirectToolCalls });

    it('does refuse a base URL at a private address before connecting', async () => {
      const before = upstream.seen.length;
      await api('POST', '/services', {
        id: 'redirector',
        adapter: 'openapi',
        definition: JSON.stringify(spec(upstream.url)),
        enabled: true,
      });
      const result = await api('POST', '/processes', { code: CODE, wait: true });
      const port = new URL(upstream.url).port;
      expect(result.body.output.ok.error).toContain(
        `refusing to connect to 127.0.0.1:${port} (private, loopback, link-local, metadata or denied address)`,
      );
      expect(upstream.seen.length).toBe(before);
    });
  });
});

describe('definition downloads and the outbound policy', () => {
  describe('with --allow-private-urls', () => {
    const { api, url } = useServer({ allowPrivateUrls: true });
    const ownApi = (port: string) =>
      new RegExp(
        `^refusing to connect to (127\\.0\\.0\\.1|\\[::1\\]):${port}( \\(localhost\\))?: that is cyrnel's own API$`,
      );

    it('does install by URL from an upstream on loopback', async () => {
      upstream.target.href = `${upstream.url}/spec.json`;
      const installed = await api('POST', '/services', {
        id: 'fetched',
        adapter: 'openapi',
        url: `${upstream.url}/go`,
        config: { headers: { 'x-marker': MARKER } },
      });
      expect(installed.status).toBe(201);
      expect(installed.body).toMatchObject({ id: 'fetched', toolCount: 2 });
    });

    it("does refuse an install by URL pointing at cyrnel's own port: 403 naming the reason", async () => {
      const port = new URL(url()).port;
      for (const host of ['127.0.0.1', 'localhost']) {
        const result = await api('POST', '/services', {
          id: 'own',
          adapter: 'openapi',
          url: `http://${host}:${port}/services/fetched/config`,
        });
        expect(result.status).toBe(403);
        expect(result.body.code).toBe('forbidden');
        expect(result.body.error).toMatch(ownApi(port));
        expect(result.text).not.toContain(MARKER);
      }
      expect((await api('GET', '/services/own')).status).toBe(404);
    });

    it("does refuse an upstream's redirect to cyrnel's own port, on install and on update", async () => {
      const port = new URL(url()).port;
      upstream.target.href = `${url()}/services/fetched/config`;
      const before = upstream.seen.length;
      const installed = await api('POST', '/services', {
        id: 'own',
        adapter: 'openapi',
        url: `${upstream.url}/go`,
      });
      expect(installed.status).toBe(403);
      expect(installed.body).toMatchObject({ code: 'forbidden' });
      expect(installed.body.error).toMatch(ownApi(port));
      expect(installed.text).not.toContain(MARKER);
      const updated = await api('PATCH', '/services/fetched', { url: `${upstream.url}/go` });
      expect(updated.status).toBe(403);
      expect(updated.body.error).toMatch(ownApi(port));
      expect(upstream.seen.slice(before)).toEqual(['GET /go', 'GET /go']);
      expect((await api('GET', '/services/own')).status).toBe(404);
    });
  });
});
