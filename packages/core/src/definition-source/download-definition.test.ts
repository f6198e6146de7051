import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundPolicy, type OwnEndpoint } from '../outbound/outbound-policy';
import { downloadDefinition } from './download-definition';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

describe('downloadDefinition', () => {
  let server: Server;
  let base: string;
  const routes = new Map<string, Handler>();
  const loopbackOnly = createOutboundPolicy({ allowCidrs: ['127.0.0.1/32'] });
  const options = { outbound: loopbackOnly, maxBytes: 1024, timeoutMs: 2000 };
  // Stands in for cyrnel's own API: a download must never reach it, whatever the allow-list says.
  let own: Server;
  let ownPort = 0;
  const ownRequests: string[] = [];

  beforeAll(async () => {
    routes.set('/ok', (_req, res) => res.end('openapi: 3.0.0'));
    routes.set('/redirect', (_req, res) => res.writeHead(302, { location: '/ok' }).end());
    routes.set('/loop', (_req, res) => res.writeHead(301, { location: '/loop' }).end());
    routes.set('/to-other-loopback', (_req, res) =>
      res.writeHead(307, { location: `http://127.0.0.2:${(server.address() as AddressInfo).port}/ok` }).end(),
    );
    routes.set('/to-own', (_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${ownPort}/services/x/config` }).end(),
    );
    routes.set('/missing', (_req, res) => res.writeHead(404).end('nope'));
    routes.set('/empty', (_req, res) => res.end('  \n'));
    routes.set('/big', (_req, res) => res.end('x'.repeat(2048)));
    routes.set('/big-chunked', (_req, res) => {
      res.write('x'.repeat(800));
      res.end('y'.repeat(800));
    });
    routes.set('/stall', () => {});
    server = createServer((req, res) => (routes.get(req.url ?? '') ?? routes.get('/missing'))?.(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    own = createServer((req, res) => {
      ownRequests.push(`${req.method} ${req.url}`);
      res.end('{"secret":"config"}');
    });
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    ownPort = (own.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const each of [server, own]) {
      each.closeAllConnections();
      await new Promise((resolve) => each.close(resolve));
    }
  });

  it('downloads the text of an allowed address', async () => {
    await expect(downloadDefinition(`${base}/ok`, options)).resolves.toBe('openapi: 3.0.0');
  });

  it('follows redirects', async () => {
    await expect(downloadDefinition(`${base}/redirect`, options)).resolves.toBe('openapi: 3.0.0');
  });

  it('re-checks every redirect hop against the policy', async () => {
    await expect(downloadDefinition(`${base}/to-other-loopback`, options)).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('refuses loopback with the default policy, by literal and by resolved name', async () => {
    const outbound = createOutboundPolicy();
    await expect(downloadDefinition(`${base}/ok`, { ...options, outbound })).rejects.toMatchObject({
      code: 'forbidden',
      status: 403,
    });
    const port = (server.address() as AddressInfo).port;
    await expect(
      downloadDefinition(`http://localhost:${port}/ok`, { ...options, outbound }),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  describe("cyrnel's own API", () => {
    const asBound = (address: string) =>
      createOutboundPolicy({
        allowPrivateUrls: true,
        allowCidrs: ['0.0.0.0/0', '::/0'],
        ownEndpoint: (): OwnEndpoint => ({ address, port: ownPort }),
      });
    const ownApi = { code: 'forbidden', status: 403, message: expect.stringMatching(/cyrnel's own API/) };

    it('is refused with everything allowed, by literal and by resolved name', async () => {
      const outbound = asBound('127.0.0.1');
      const url = `http://127.0.0.1:${ownPort}/services/x/config`;
      await expect(downloadDefinition(url, { ...options, outbound })).rejects.toMatchObject(ownApi);
      await expect(
        downloadDefinition(`http://localhost:${ownPort}/services/x/config`, { ...options, outbound }),
      ).rejects.toMatchObject(ownApi);
      expect(ownRequests).toEqual([]);
    });

    it('is refused on loopback when cyrnel is bound to a wildcard address', async () => {
      for (const address of ['0.0.0.0', '::']) {
        await expect(
          downloadDefinition(`http://127.0.0.1:${ownPort}/x`, { ...options, outbound: asBound(address) }),
        ).rejects.toMatchObject(ownApi);
      }
      expect(ownRequests).toEqual([]);
    });

    it('is refused as a redirect hop from an allowed upstream', async () => {
      await expect(
        downloadDefinition(`${base}/to-own`, { ...options, outbound: asBound('127.0.0.1') }),
      ).rejects.toMatchObject(ownApi);
      expect(ownRequests).toEqual([]);
    });

    it('leaves other ports of the same address reachable', async () => {
      await expect(
        downloadDefinition(`${base}/ok`, { ...options, outbound: asBound('127.0.0.1') }),
      ).resolves.toBe('openapi: 3.0.0');
    });
  });

  it('answers 403 for a refusal of any policy, even one throwing a plain Error', async () => {
    const seen: string[] = [];
    const outbound = {
      check(address: string, port: number, hostname: string) {
        seen.push(`${address}:${port} ${hostname}`);
        throw new Error(`refusing to connect to ${address}:${port}`);
      },
    };
    const port = (server.address() as AddressInfo).port;
    for (const host of ['127.0.0.1', 'localhost']) {
      await expect(
        downloadDefinition(`http://${host}:${port}/ok`, { ...options, outbound }),
      ).rejects.toMatchObject({ code: 'forbidden', status: 403, message: /^refusing to connect to / });
    }
    // The literal is checked as it is; the name by what it resolved to (127.0.0.1 or ::1).
    expect(seen[0]).toBe(`127.0.0.1:${port} 127.0.0.1`);
    expect(seen[1]).toMatch(new RegExp(`^(127\\.0\\.0\\.1|::1):${port} localhost$`));
  });

  it('checks the scheme default port when the URL names none', async () => {
    const ports: number[] = [];
    const outbound = {
      check(_address: string, port: number) {
        ports.push(port);
        throw new Error('no');
      },
    };
    await expect(downloadDefinition('http://127.0.0.1/x', { ...options, outbound })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(downloadDefinition('https://127.0.0.1/x', { ...options, outbound })).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(ports).toEqual([80, 443]);
  });

  it('connects to names resolved to allowed addresses', async () => {
    const port = (server.address() as AddressInfo).port;
    const outbound = createOutboundPolicy({ allowPrivateUrls: true });
    await expect(downloadDefinition(`http://localhost:${port}/ok`, { ...options, outbound })).resolves.toBe(
      'openapi: 3.0.0',
    );
  });

  it('gives up after too many redirects with upstream_error', async () => {
    await expect(downloadDefinition(`${base}/loop`, options)).rejects.toMatchObject({
      code: 'upstream_error',
      message: expect.stringMatching(/redirects/),
    });
  });

  it('answers non-2xx with upstream_error', async () => {
    await expect(downloadDefinition(`${base}/missing`, options)).rejects.toMatchObject({
      code: 'upstream_error',
      status: 502,
      message: expect.stringMatching(/404/),
    });
  });

  it('refuses empty definitions with invalid_request', async () => {
    await expect(downloadDefinition(`${base}/empty`, options)).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('caps the size, declared or streamed, with payload_too_large', async () => {
    await expect(downloadDefinition(`${base}/big`, options)).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    await expect(downloadDefinition(`${base}/big-chunked`, options)).rejects.toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('times out with timeout (504)', async () => {
    await expect(downloadDefinition(`${base}/stall`, { ...options, timeoutMs: 200 })).rejects.toMatchObject({
      code: 'timeout',
      status: 504,
    });
  });

  it('refuses non-http URLs and garbage with invalid_request', async () => {
    await expect(downloadDefinition('file:///etc/passwd', options)).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(downloadDefinition('not a url', options)).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('reports unresolvable hosts as upstream_error', async () => {
    await expect(downloadDefinition('http://does-not-exist.invalid/x', options)).rejects.toMatchObject({
      code: 'upstream_error',
    });
  });
});
