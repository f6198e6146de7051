import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizationServer, followAuthorization, startAuthorizationServer } from '../src/index';

const RESOURCE = 'https://mcp.example.test/mcp';
const REDIRECT = 'http://127.0.0.1:9/callback';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

interface TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  token_type?: string;
  scope?: string;
  error?: string;
}

async function token(
  as: AuthorizationServer,
  body: Record<string, string>,
  auth?: string,
): Promise<TokenAnswer> {
  const response = await fetch(as.endpoints.token, {
    method: 'POST',
    headers: auth ? { authorization: auth } : {},
    body: new URLSearchParams(body),
  });
  return (await response.json()) as TokenAnswer;
}

function decode(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = jwt.split('.');
  return {
    header: JSON.parse(Buffer.from(header ?? '', 'base64url').toString()),
    payload: JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()),
  };
}

/** Whether the JWT's RS256 signature verifies with a key of the server's published JWKS. */
async function verifiesWithJwks(as: AuthorizationServer, jwt: string): Promise<boolean> {
  const { keys } = (await (await fetch(as.endpoints.jwks)).json()) as { keys: { kid: string }[] };
  const [header, payload, signature] = jwt.split('.');
  const key = keys.find((candidate) => candidate.kid === decode(jwt).header.kid);
  if (!key || !signature) return false;
  return verify(
    'RSA-SHA256',
    Buffer.from(`${header}.${payload}`),
    createPublicKey({ key: key as never, format: 'jwk' }),
    Buffer.from(signature, 'base64url'),
  );
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe('startAuthorizationServer', () => {
  let as: AuthorizationServer;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      clients: [
        { clientId: 'app', clientSecret: 'app-secret', redirectUris: [REDIRECT] },
        { clientId: 'public-app', redirectUris: [REDIRECT] },
      ],
      account: { id: 'alice', claims: { name: 'Alice', email: 'alice@example.test' } },
      accessTokenTtl: 120,
    });
  });
  afterAll(() => as.close());

  it('answers its metadata at both well-known paths, naming its issuer and endpoints', async () => {
    expect(as.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const oidc = (await (await fetch(as.endpoints.openidConfiguration)).json()) as Record<string, unknown>;
    const rfc8414 = (await (await fetch(as.endpoints.oauthMetadata)).json()) as Record<string, unknown>;
    expect(rfc8414).toEqual(oidc);
    expect(oidc).toMatchObject({
      issuer: as.issuer,
      authorization_endpoint: as.endpoints.authorization,
      token_endpoint: as.endpoints.token,
      revocation_endpoint: as.endpoints.revocation,
      jwks_uri: as.endpoints.jwks,
      code_challenge_methods_supported: ['S256'],
    });
    expect(oidc.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token']),
    );
  });

  it('issues a JWT access token for a resource by client credentials, signed with its published key', async () => {
    const before = as.count({ grantType: 'client_credentials' });
    const answer = await token(
      as,
      { grant_type: 'client_credentials', resource: RESOURCE, scope: 'read' },
      basic('app', 'app-secret'),
    );
    expect(answer).toMatchObject({ token_type: 'Bearer', expires_in: 120, scope: 'read' });
    const jwt = answer.access_token ?? '';
    const { header, payload } = decode(jwt);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      iss: as.issuer,
      aud: RESOURCE,
      client_id: 'app',
      sub: 'app',
      scope: 'read',
    });
    expect(Number(payload.exp) - Number(payload.iat)).toBe(120);
    expect(await verifiesWithJwks(as, jwt)).toBe(true);
    expect(as.count({ grantType: 'client_credentials' })).toBe(before + 1);
    expect(as.requests.at(-1)).toMatchObject({
      endpoint: 'token',
      clientId: 'app',
      resource: RESOURCE,
      ok: true,
    });
  });

  it('refuses a wrong client secret, and records the refusal', async () => {
    const answer = await token(
      as,
      { grant_type: 'client_credentials', resource: RESOURCE },
      basic('app', 'nope'),
    );
    expect(answer.error).toBe('invalid_client');
    expect(as.requests.at(-1)).toMatchObject({ endpoint: 'token', ok: false, status: 401 });
  });

  it('runs the code flow with PKCE without a form: code, tokens, rotated refresh, revocation', async () => {
    const { verifier, challenge } = pkce();
    const authorize = new URL(as.endpoints.authorization);
    for (const [name, value] of Object.entries({
      client_id: 'app',
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'read write',
      resource: RESOURCE,
      state: 'state-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(name, value);
    const callback = await followAuthorization(authorize);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get('state')).toBe('state-1');
    const code = callback.searchParams.get('code') ?? '';
    expect(code).not.toBe('');

    const tokens = await token(
      as,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      basic('app', 'app-secret'),
    );
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const { payload } = decode(tokens.access_token ?? '');
    expect(payload).toMatchObject({
      sub: 'alice',
      aud: RESOURCE,
      name: 'Alice',
      email: 'alice@example.test',
    });
    expect(String(payload.scope).split(' ').sort()).toEqual(['read', 'write']);

    const refreshesBefore = as.count({ grantType: 'refresh_token' });
    const refreshed = await token(
      as,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' },
      basic('app', 'app-secret'),
    );
    expect(refreshed.access_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    // Rotation: the old refresh token is spent.
    const reused = await token(
      as,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' },
      basic('app', 'app-secret'),
    );
    expect(reused.error).toBe('invalid_grant');
    expect(as.count({ grantType: 'refresh_token' })).toBe(refreshesBefore + 2);
    expect(as.count({ grantType: 'refresh_token', ok: false })).toBeGreaterThanOrEqual(1);

    const revoked = await fetch(as.endpoints.revocation, {
      method: 'POST',
      headers: { authorization: basic('app', 'app-secret') },
      body: new URLSearchParams({ token: refreshed.refresh_token ?? '', token_type_hint: 'refresh_token' }),
    });
    expect(revoked.status).toBe(200);
    expect(as.count({ endpoint: 'revocation', ok: true })).toBe(1);
    const afterRevocation = await token(
      as,
      { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token ?? '' },
      basic('app', 'app-secret'),
    );
    expect(afterRevocation.error).toBe('invalid_grant');
  });

  it('requires PKCE: an authorize URL without a challenge comes back with an error', async () => {
    const authorize = new URL(as.endpoints.authorization);
    authorize.search = new URLSearchParams({
      client_id: 'app',
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'read',
      resource: RESOURCE,
      state: 's',
    }).toString();
    const callback = await followAuthorization(authorize);
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('serves a public client (no secret) with PKCE', async () => {
    const { verifier, challenge } = pkce();
    const authorize = new URL(as.endpoints.authorization);
    authorize.search = new URLSearchParams({
      client_id: 'public-app',
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'read',
      resource: RESOURCE,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    const code = (await followAuthorization(authorize)).searchParams.get('code') ?? '';
    const tokens = await token(as, {
      grant_type: 'authorization_code',
      client_id: 'public-app',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(decode(tokens.access_token ?? '').payload).toMatchObject({
      sub: 'alice',
      client_id: 'public-app',
    });
  });

  it('signs test JWTs with its published key, any claims given', async () => {
    const jwt = await as.signJwt({ sub: 'bob', aud: 'https://elsewhere.test/', exp: 1 });
    expect(decode(jwt).payload).toMatchObject({
      iss: as.issuer,
      sub: 'bob',
      aud: 'https://elsewhere.test/',
      exp: 1,
    });
    expect(await verifiesWithJwks(as, jwt)).toBe(true);
  });
});

describe('startAuthorizationServer with its defaults', () => {
  it('knows one confidential client and answers short-lived tokens when asked', async () => {
    const as = await startAuthorizationServer({ accessTokenTtl: 1 });
    try {
      expect(as.clients).toEqual([{ clientId: 'cyrnel-test', redirectUris: ['http://127.0.0.1/callback'] }]);
      const answer = await token(
        as,
        { grant_type: 'client_credentials', resource: RESOURCE },
        basic('cyrnel-test', 'cyrnel-test-secret'),
      );
      expect(answer.expires_in).toBe(1);
      const { payload } = decode(answer.access_token ?? '');
      expect(Number(payload.exp) - Number(payload.iat)).toBe(1);
    } finally {
      await as.close();
    }
  });
});
