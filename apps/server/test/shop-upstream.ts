import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The API key the upstream demands in `x-api-key`. */
export const UPSTREAM_KEY = 'upstream-secret-key';

/** A small shop API on 127.0.0.1 that the OpenAPI adapter calls for real. */
export interface Upstream {
  readonly url: string;
  /** Requests received, as `METHOD path?query`. */
  readonly requests: string[];
  /** Resolves when a request for `path` has arrived (at once if one did). */
  arrived(path: string): Promise<void>;
  /** Let the requests held on `/held-spec.json` answer with the spec. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Start the shop upstream: `GET /users/:id`, `GET /orders?userId=`, and for definition downloads
 * `/spec.json`, `/empty`, `/missing` (404), `/redirect` (to `/spec.json`), `/redirect-metadata`
 * (to 169.254.169.254), `/big.json` (200 KiB), `/stall` (never answers) and `/held-spec.json`
 * (answers once {@link Upstream.release} is called).
 */
export async function startUpstream(): Promise<Upstream> {
  const requests: string[] = [];
  const waiters: { path: string; resolve: () => void }[] = [];
  let released = false;
  const held: (() => void)[] = [];
  let base = '';
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    for (const waiter of waiters.filter((candidate) => candidate.path === url.pathname)) waiter.resolve();
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (url.pathname === '/spec.json') return json(200, shopSpec(base));
    if (url.pathname === '/big.json') return response.end('x'.repeat(200 * 1024));
    if (url.pathname === '/stall') return;
    if (url.pathname === '/held-spec.json') {
      const answer = () => json(200, { ...shopSpec(base), info: { title: 'Held', version: '1.0.0' } });
      if (released) answer();
      else held.push(answer);
      return;
    }
    if (url.pathname === '/redirect-metadata') {
      return response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    }
    if (url.pathname === '/empty') return response.end('');
    if (url.pathname === '/missing') return json(404, { message: 'no' });
    if (url.pathname === '/redirect') return response.writeHead(302, { location: '/spec.json' }).end();
    if (request.headers['x-api-key'] !== UPSTREAM_KEY) return json(401, { message: 'bad key' });
    const user = /^\/users\/(\d+)$/.exec(url.pathname);
    if (user) return json(200, { id: Number(user[1]), name: `user-${user[1]}` });
    if (url.pathname === '/orders') {
      const userId = Number(url.searchParams.get('userId'));
      return json(200, [
        { id: 1, userId, amount: 5 },
        { id: 2, userId, amount: 7 },
      ]);
    }
    return json(404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    arrived: (path) =>
      requests.some((line) => line.split(' ')[1]?.split('?')[0] === path)
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ path, resolve })),
    release: () => {
      released = true;
      for (const answer of held.splice(0)) answer();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** OpenAPI 3.0 document of the shop upstream, served from `baseUrl`. */
export function shopSpec(baseUrl: string): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 'Shop', description: 'Users and their orders', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: { shopKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        User: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
        Order: {
          type: 'object',
          properties: { id: { type: 'integer' }, userId: { type: 'integer' }, amount: { type: 'number' } },
        },
      },
    },
    security: [{ shopKey: [] }],
    paths: {
      '/users/{id}': {
        get: {
          operationId: 'getUser',
          summary: 'Get a user',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } },
            },
          },
        },
      },
      '/orders': {
        get: {
          operationId: 'listOrders',
          summary: 'List orders of a user',
          parameters: [{ name: 'userId', in: 'query', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: { type: 'array', items: { $ref: '#/components/schemas/Order' } },
                },
              },
            },
          },
        },
      },
    },
  };
}
