import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link TokenUpstream} saw: who the caller said it was, and the token it carried. */
export interface SeenToken {
  /** The `who` query parameter ('' when absent). */
  readonly who: string;
  /** The `x-token` header, or undefined without one. */
  readonly token: string | undefined;
}

/** A running {@link startTokenUpstream}. */
export interface TokenUpstream {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request so far, in order. */
  readonly seen: SeenToken[];
  /** Its OpenAPI document: one tool `whoami` (`GET /whoami?who=`), credential `token` sent as `x-token`. */
  spec(): Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * A real HTTP API on 127.0.0.1 that records the credential of every request: for tests of whose
 * credentials a tool call carries (connections, principals). It answers `{"ok":true}` to
 * anything; a test reads `seen` to tell which token each caller's requests used.
 *
 * @example
 * ```ts
 * const upstream = await startTokenUpstream();
 * await api('POST', '/services', { id: 'who', adapter: 'openapi', definition: JSON.stringify(upstream.spec()), secrets: { token: 't' } });
 * // ... run code calling cyrnel.services.who.tools.whoami.invoke({ query: { who: 'alice' } })
 * expect(upstream.seen).toEqual([{ who: 'alice', token: 't' }]);
 * await upstream.close();
 * ```
 */
export async function startTokenUpstream(): Promise<TokenUpstream> {
  const seen: SeenToken[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const token = request.headers['x-token'];
    seen.push({
      who: url.searchParams.get('who') ?? '',
      token: typeof token === 'string' ? token : undefined,
    });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    spec: () => ({
      openapi: '3.0.3',
      info: { title: 'Who', version: '1.0.0' },
      servers: [{ url }],
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'x-token' } } },
      security: [{ token: [] }],
      paths: {
        '/whoami': {
          get: {
            operationId: 'whoami',
            parameters: [{ name: 'who', in: 'query', schema: { type: 'string' } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
