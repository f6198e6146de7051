import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientMetadata, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import {
  followAuthorization,
  RESUME_COOKIE,
  type RecordedRequest,
  signWithKey,
  type TestJwtClaims,
} from './authorization-server-helpers';
import { memoryAdapterFactory } from './authorization-server-storage';

export { followAuthorization, type RecordedRequest, type TestJwtClaims };

/** One client the authorization server knows (OAuth 2.0 Dynamic Client Registration metadata names). */
export interface TestClient {
  readonly clientId: string;
  /** Absent: a public client (`token_endpoint_auth_method: none`, PKCE only). */
  readonly clientSecret?: string;
  /** Default `['http://127.0.0.1/callback']`; only code-flow clients need them. */
  readonly redirectUris?: readonly string[];
  /** Default `['authorization_code', 'refresh_token', 'client_credentials']` (a public client without `client_credentials`). */
  readonly grantTypes?: readonly string[];
  /** Default `client_secret_basic` with a secret, `none` without. */
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
}

/** The one person the server signs in, without a form, when a browser (or `fetch`) follows an authorize URL. */
export interface TestAccount {
  /** The `sub` of its tokens. Default `test-user`. */
  readonly id: string;
  /** Claims added to its ID tokens and JWT access tokens (e.g. `name`, `email`). */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** Options of {@link startAuthorizationServer}. */
export interface AuthorizationServerOptions {
  /** Default: `cyrnel-test` with secret `cyrnel-test-secret`. */
  readonly clients?: readonly TestClient[];
  /** Default: `{ id: 'test-user', claims: { name: 'Test User', email: 'test-user@example.com' } }`. */
  readonly account?: TestAccount;
  /** Scopes every resource server accepts. Default `['read', 'write']`. */
  readonly scopes?: readonly string[];
  /** Lifetime of access tokens in seconds (every grant). Default 3600. */
  readonly accessTokenTtl?: number;
  /** Lifetime of refresh tokens in seconds. Default 86400. */
  readonly refreshTokenTtl?: number;
  /** Whether every refresh answers a new refresh token (and retires the old one). Default true. */
  readonly rotateRefreshTokens?: boolean;
}

/** A running authorization server: see {@link startAuthorizationServer}. */
export interface AuthorizationServer {
  /** Its issuer, `http://127.0.0.1:<port>` (no trailing slash). */
  readonly issuer: string;
  /** Where its endpoints are (as in its metadata). */
  readonly endpoints: {
    readonly authorization: string;
    readonly token: string;
    readonly revocation: string;
    readonly jwks: string;
    /** OpenID Connect discovery (`/.well-known/openid-configuration`). */
    readonly openidConfiguration: string;
    /** RFC 8414 metadata (`/.well-known/oauth-authorization-server`): the same document. */
    readonly oauthMetadata: string;
  };
  /** The clients as configured (defaults applied). */
  readonly clients: readonly Required<Pick<TestClient, 'clientId' | 'redirectUris'>>[];
  /** Every request to the token and revocation endpoints, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** How many recorded requests match: e.g. `count({ grantType: 'refresh_token' })`. */
  count(filter?: Partial<Pick<RecordedRequest, 'endpoint' | 'grantType' | 'clientId' | 'ok'>>): number;
  /**
   * Sign a JWT with the server's own published key (its `kid`), for tests of what a resource
   * server accepts: a wrong audience, an expired token. `iss` defaults to the issuer, `iat` to
   * now, `exp` to an hour from now.
   */
  signJwt(claims: TestJwtClaims): Promise<string>;
  /** Stop listening and drop every connection. */
  close(): Promise<void>;
}

const DEFAULT_CLIENT: TestClient = { clientId: 'cyrnel-test', clientSecret: 'cyrnel-test-secret' };
const DEFAULT_ACCOUNT: TestAccount = {
  id: 'test-user',
  claims: { name: 'Test User', email: 'test-user@example.com' },
};

function clientMetadata(client: TestClient): ClientMetadata & { client_id: string; redirect_uris: string[] } {
  const isPublic = client.clientSecret === undefined;
  return {
    client_id: client.clientId,
    ...(isPublic ? {} : { client_secret: client.clientSecret }),
    redirect_uris: [...(client.redirectUris ?? ['http://127.0.0.1/callback'])],
    grant_types: [
      ...(client.grantTypes ??
        (isPublic
          ? ['authorization_code', 'refresh_token']
          : ['authorization_code', 'refresh_token', 'client_credentials'])),
    ],
    response_types: ['code'],
    token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? (isPublic ? 'none' : 'client_secret_basic'),
  };
}

/**
 * Start a real OAuth 2.1 / OpenID Connect authorization server (`oidc-provider`, certified) on
 * 127.0.0.1 and a random port, for tests of OAuth clients and resource servers. It supports:
 *
 * - the authorization code grant with PKCE (S256, required): following the authorize URL signs
 *   in the configured account and consents to everything asked, without a form, so plain
 *   `fetch` reaches the redirect URI ({@link followAuthorization} does it and answers that URL);
 * - client credentials, refresh tokens (rotated by default) and revocation (RFC 7009);
 * - resource indicators (RFC 8707): a `resource` parameter gives a JWT access token (RFC 9068,
 *   RS256) whose `aud` is that resource, signed with the key published at its JWKS;
 * - RFC 8414 and OpenID discovery, configurable clients and token lifetimes, and a record of
 *   every token and revocation request.
 *
 * @example
 * ```ts
 * const as = await startAuthorizationServer({ accessTokenTtl: 60 });
 * const response = await fetch(as.endpoints.token, {
 *   method: 'POST',
 *   headers: { authorization: `Basic ${btoa('cyrnel-test:cyrnel-test-secret')}` },
 *   body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'https://api.example/', scope: 'read' }),
 * });
 * const { access_token } = await response.json(); // a JWT with aud 'https://api.example/'
 * as.count({ grantType: 'client_credentials' }); // 1
 * await as.close();
 * ```
 */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions = {},
): Promise<AuthorizationServer> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const account = options.account ?? DEFAULT_ACCOUNT;
  const scopes = (options.scopes ?? ['read', 'write']).join(' ');
  const accessTokenTtl = options.accessTokenTtl ?? 3600;
  const clients = (options.clients ?? [DEFAULT_CLIENT]).map(clientMetadata);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  const requests: RecordedRequest[] = [];

  const configuration: Configuration = {
    adapter: memoryAdapterFactory(),
    clients,
    jwks: { keys: [jwk] },
    scopes: ['openid', 'offline_access', 'profile', 'email'],
    claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => ({
          scope: scopes,
          audience: undefined,
          accessTokenTTL: accessTokenTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    ttl: {
      AccessToken: accessTokenTtl,
      ClientCredentials: accessTokenTtl,
      RefreshToken: options.refreshTokenTtl ?? 86_400,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 86_400,
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => options.rotateRefreshTokens !== false,
    findAccount: async (_ctx, sub) =>
      sub === account.id ? { accountId: sub, claims: async () => ({ sub, ...account.claims }) } : undefined,
    extraTokenClaims: async (_ctx, token) =>
      'accountId' in token && token.accountId === account.id ? { ...account.claims } : undefined,
    // Consent without a form: the grant covers whatever the signed-in account's client asked.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (!accountId || !clientId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
      const requested = [...(ctx.oidc.requestParamScopes ?? [])].join(' ');
      if (requested) grant.addOIDCScope(requested);
      for (const indicator of Object.keys(ctx.oidc.resourceServers ?? {}))
        grant.addResourceScope(indicator, requested);
      await grant.save();
      return grant;
    },
    interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
    renderError: async (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.use(async (ctx, next) => {
    await next();
    const route = ctx.oidc?.route;
    if (route !== 'token' && route !== 'revocation') return;
    const params = ctx.oidc.params as Record<string, unknown> | undefined;
    requests.push({
      endpoint: route,
      grantType: route === 'token' ? (params?.grant_type as string | undefined) : undefined,
      clientId: ctx.oidc.client?.clientId,
      resource: params?.resource as string | string[] | undefined,
      status: ctx.status,
      ok: ctx.status >= 200 && ctx.status < 300,
    });
  });
  const callback = provider.callback();

  // Login without a form: the interaction the provider asks for is finished at once for the
  // configured account, then the browser goes back to the authorization endpoint.
  const interact = async (uid: string, response: ServerResponse) => {
    const interaction = await provider.Interaction.find(uid);
    if (!interaction) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown interaction"}');
      return;
    }
    interaction.result = { login: { accountId: account.id } };
    await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
    response.writeHead(303, { location: interaction.returnTo }).end();
  };

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const interaction = /^\/interaction\/([\w-]+)$/.exec(path);
    if (interaction?.[1]) {
      interact(interaction[1], response).catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
      });
      return;
    }
    // The provider keys the way back from an interaction by a cookie; plain fetch keeps none,
    // so the resume URL (which names the interaction) brings its own.
    const resume = /^\/auth\/([\w-]+)$/.exec(path);
    if (resume?.[1]) {
      const cookie = `${RESUME_COOKIE}=${resume[1]}`;
      request.headers.cookie = request.headers.cookie ? `${request.headers.cookie}; ${cookie}` : cookie;
    }
    if (path === '/.well-known/oauth-authorization-server') request.url = '/.well-known/openid-configuration';
    callback(request, response);
  });

  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  return {
    issuer,
    endpoints: {
      authorization: `${issuer}/auth`,
      token: `${issuer}/token`,
      revocation: `${issuer}/token/revocation`,
      jwks: `${issuer}/jwks`,
      openidConfiguration: `${issuer}/.well-known/openid-configuration`,
      oauthMetadata: `${issuer}/.well-known/oauth-authorization-server`,
    },
    clients: clients.map((client) => ({ clientId: client.client_id, redirectUris: client.redirect_uris })),
    requests,
    count(filter = {}) {
      return requests.filter((entry) =>
        Object.entries(filter).every(([key, value]) => entry[key as keyof RecordedRequest] === value),
      ).length;
    },
    signJwt: (claims) => signWithKey(privateKey, kid, issuer, claims),
    async close() {
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
