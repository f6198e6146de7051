import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The minimal local service every tool-call benchmark talks to. */
export interface Upstream {
  readonly url: string;
  /** A tiny OpenAPI 3.0 document with one operation, `GET /echo?n=<int>` (operationId `echo`). */
  readonly openapi: string;
  /** `performance.now()` of every `POST /note` the upstream received, in order. */
  readonly notes: number[];
  close(): Promise<void>;
}

/** Builds the OpenAPI description of the upstream at `baseUrl`. */
export function upstreamOpenApi(baseUrl: string): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'bench upstream', version: '1.0.0', description: 'Echoes a number' },
    servers: [{ url: baseUrl }],
    paths: {
      '/echo': {
        get: {
          operationId: 'echo',
          summary: 'Echo a number',
          parameters: [{ name: 'n', in: 'query', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': {
              description: 'the number',
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { ok: { type: 'boolean' }, n: { type: 'integer' } } },
                },
              },
            },
          },
        },
      },
      '/note': {
        post: {
          operationId: 'note',
          summary: 'Take a note (a write: its policy asks by default)',
          parameters: [{ name: 'i', in: 'query', required: true, schema: { type: 'integer' } }],
          responses: { '204': { description: 'noted' } },
        },
      },
    },
  });
}

/** Starts a node:http server on 127.0.0.1 answering `/echo` and `/openapi.json`. */
export async function startUpstream(): Promise<Upstream> {
  let openapi = '';
  const notes: number[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/note' && req.method === 'POST') {
      notes.push(performance.now());
      res.writeHead(204).end();
    } else if (url.pathname === '/echo') {
      const body = `{"ok":true,"n":${Number(url.searchParams.get('n')) || 0}}`;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    } else if (url.pathname === '/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(openapi);
    } else {
      res.writeHead(404).end();
    }
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  openapi = upstreamOpenApi(url);
  return {
    url,
    openapi,
    notes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
