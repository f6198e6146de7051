import { createPublicKey, createVerify, type JsonWebKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the protected upstream answered. */
export interface SeenRequest {
  readonly who: string;
  /** The bearer token it carried, if any. */
  readonly token: string | undefined;
  /** Whether the token was a valid JWT of a trusted issuer for this upstream (and not refused by the test). */
  readonly valid: boolean;
}

/** A resource server on 127.0.0.1 that checks bearer JWTs against their issuer's JWKS. */
export interface ProtectedUpstream {
  /** Its base URL: also the audience (resource indicator) its tokens must name. */
  readonly url: string;
  readonly seen: SeenRequest[];
  /** Tokens it refuses from now on (401), as if their grant had been withdrawn. */
  readonly refused: Set<string>;
  /** Callers (`who`) it refuses whatever token they carry (401): a broken or hostile upstream. */
  readonly refusing: Set<string>;
  close(): Promise<void>;
}

const decode = (part: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

/** Verify an RS256 JWT of one of `issuers` for `audience` (JWKS read from the issuer, by kid). */
async function verify(token: string, issuers: readonly string[], audience: string): Promise<boolean> {
  const [head, body, signature] = token.split('.');
  if (!head || !body || !signature) return false;
  const header = decode(head);
  const claims = decode(body);
  const issuer = claims.iss;
  if (typeof issuer !== 'string' || !issuers.includes(issuer) || header.alg !== 'RS256') return false;
  if (claims.aud !== audience && !(Array.isArray(claims.aud) && claims.aud.includes(audience))) return false;
  if (typeof claims.exp !== 'number' || claims.exp * 1000 <= Date.now()) return false;
  const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: (JsonWebKey & { kid?: string })[] };
  const jwk = jwks.keys.find((key) => key.kid === header.kid);
  if (!jwk) return false;
  return createVerify('RSA-SHA256')
    .update(`${head}.${body}`)
    .verify(createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(signature, 'base64url'));
}

/**
 * Start the protected upstream: `GET /whoami?who=` answers 200 for a valid bearer JWT (issued by
 * one of `issuers` for this upstream's URL), 401 otherwise; every request is recorded.
 */
export async function startProtectedUpstream(issuers: () => readonly string[]): Promise<ProtectedUpstream> {
  const seen: SeenRequest[] = [];
  const refused = new Set<string>();
  const refusing = new Set<string>();
  let url = '';
  const server: Server = createServer((request, response) => {
    const who = new URL(request.url ?? '/', 'http://x').searchParams.get('who') ?? '';
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    const check =
      token && !refused.has(token) && !refusing.has(who)
        ? verify(token, issuers(), url)
        : Promise.resolve(false);
    check
      .catch(() => false)
      .then((valid) => {
        seen.push({ who, token, valid });
        response
          .writeHead(valid ? 200 : 401, { 'content-type': 'application/json' })
          .end(JSON.stringify(valid ? { ok: true } : { error: 'invalid_token' }));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    seen,
    refused,
    refusing,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An OpenAPI document of the upstream whose one tool needs an OAuth token of `issuer`. */
export function oauthSpec(baseUrl: string, issuer: string): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 'Protected', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        login: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: `${issuer}/auth`,
              tokenUrl: `${issuer}/token`,
              scopes: { read: 'read' },
            },
            clientCredentials: { tokenUrl: `${issuer}/token`, scopes: { read: 'read' } },
          },
        },
      },
    },
    security: [{ login: ['read'] }],
    paths: {
      '/whoami': {
        get: {
          operationId: 'whoami',
          parameters: [{ name: 'who', in: 'query', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
}
