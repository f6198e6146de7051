import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAddressGuard } from '@cyrnel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadDefinition } from './download-definition';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

describe('downloadDefinition', () => {
  let server: Server;
  let base: string;
  const routes = new Map<string, Handler>();
  const loopbackOnly = createAddressGuard({ allowCidrs: ['127.0.0.1/32'] });
  const options = { guard: loopbackOnly, maxBytes: 1024, timeoutMs: 2000 };

  beforeAll(async () => {
    routes.set('/ok', (_req, res) => res.end('openapi: 3.0.0'));
    routes.set('/redirect', (_req, res) => res.writeHead(302, { location: '/ok' }).end());
    routes.set('/loop', (_req, res) => res.writeHead(301, { location: '/loop' }).end());
    routes.set('/to-other-loopback', (_req, res) =>
      res.writeHead(307, { location: `http://127.0.0.2:${(server.address() as AddressInfo).port}/ok` }).end(),
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
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('downloads the text of an allowed address', async () => {
    await expect(downloadDefinition(`${base}/ok`, options)).resolves.toBe('openapi: 3.0.0');
  });

  it('follows redirects', async () => {
    await expect(downloadDefinition(`${base}/redirect`, options)).resolves.toBe('openapi: 3.0.0');
  });

  it('re-checks every redirect hop against the guard', async () => {
    await expect(downloadDefinition(`${base}/to-other-loopback`, options)).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('refuses loopback with the default guard, by literal and by resolved name', async () => {
    const guard = createAddressGuard();
    await expect(downloadDefinition(`${base}/ok`, { ...options, guard })).rejects.toMatchObject({
      code: 'forbidden',
      status: 403,
    });
    const port = (server.address() as AddressInfo).port;
    await expect(
      downloadDefinition(`http://localhost:${port}/ok`, { ...options, guard }),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('connects to names resolved to allowed addresses', async () => {
    const port = (server.address() as AddressInfo).port;
    const guard = createAddressGuard({ allowPrivateUrls: true });
    await expect(downloadDefinition(`http://localhost:${port}/ok`, { ...options, guard })).resolves.toBe(
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
