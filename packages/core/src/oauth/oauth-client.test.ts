import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuthorizationServer, followAuthorization, startAuthorizationServer } from '@cyrnel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundPolicy } from '../outbound/outbound-policy';
import { discoverAuthorizationServer } from './discovery';
import {
  buildAuthorizationRequest,
  clientCredentialsGrant,
  exchangeAuthorizationCode,
  refreshAccessToken,
  revokeToken,
} from './oauth-client';
import type { OAuthClientOptions, OAuthServerMetadata } from './oauth-types';

const REDIRECT = 'http://127.0.0.1:9/callback';
const RESOURCE = 'https://api.example.test/';
const outbound = createOutboundPolicy({ allowPrivateUrls: true });

function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString());
}

async function rejection(
  promise: Promise<unknown>,
): Promise<{ reason?: string; status?: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { reason?: string; status?: number; message: string };
  }
  throw new Error('expected a rejection');
}

describe('the OAuth client against a real authorization server', () => {
  let as: AuthorizationServer;
  let server: OAuthServerMetadata;
  let options: OAuthClientOptions;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      clients: [
        { clientId: 'app', clientSecret: 'app-secret', redirectUris: [REDIRECT] },
        {
          clientId: 'post-app',
          clientSecret: 'post-secret',
          redirectUris: [REDIRECT],
          tokenEndpointAuthMethod: 'client_secret_post',
        },
        { clientId: 'public-app', redirectUris: [REDIRECT] },
      ],
      account: { id: 'alice', claims: { name: 'Alice' } },
      accessTokenTtl: 300,
    });
    server = await discoverAuthorizationServer(as.issuer, { outbound, allowHttp: true });
    options = {
      server,
      client: { clientId: 'app', clientSecret: 'app-secret', redirectUri: REDIRECT },
      outbound,
      allowHttp: true,
    };
  });
  afterAll(() => as.close());

  it('discovers the endpoints from the issuer', () => {
    expect(server).toMatchObject({
      issuer: as.issuer,
      authorizationUrl: as.endpoints.authorization,
      tokenUrl: as.endpoints.token,
      revocationUrl: as.endpoints.revocation,
      jwksUri: as.endpoints.jwks,
      codeChallengeMethodsSupported: ['S256'],
    });
    expect(server.metadata.issuer).toBe(as.issuer);
  });

  it('runs the code flow: PKCE S256 and state in the URL, tokens for the resource, rotation, revocation', async () => {
    const request = await buildAuthorizationRequest(options, {
      scopes: ['read', 'write'],
      resource: RESOURCE,
    });
    const url = new URL(request.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toBe(request.state);
    expect(url.searchParams.get('code_challenge')).not.toBe(request.codeVerifier);
    expect(url.searchParams.get('scope')).toBe('read write');
    expect(url.searchParams.get('resource')).toBe(RESOURCE);
    expect(request.codeVerifier.length).toBeGreaterThanOrEqual(43);

    const callbackUrl = await followAuthorization(request.url);
    const tokens = await exchangeAuthorizationCode(options, { callbackUrl, ...request });
    expect(tokens.tokenType.toLowerCase()).toBe('bearer');
    expect(claims(tokens.accessToken)).toMatchObject({ sub: 'alice', aud: RESOURCE });
    expect(tokens.scope?.split(' ').sort()).toEqual(['read', 'write']);
    expect(Date.parse(tokens.expiresAt ?? '')).toBeGreaterThan(Date.now());
    expect(tokens.refreshToken).toEqual(expect.any(String));

    const refreshes = as.count({ grantType: 'refresh_token' });
    const next = await refreshAccessToken(options, { refreshToken: tokens.refreshToken ?? '' });
    expect(next.refreshToken).not.toBe(tokens.refreshToken);
    expect(claims(next.accessToken)).toMatchObject({ sub: 'alice', aud: RESOURCE });
    const spent = await rejection(refreshAccessToken(options, { refreshToken: tokens.refreshToken ?? '' }));
    expect(spent).toMatchObject({ reason: 'upstream_unauthorized', status: 502 });
    expect(spent.message).toContain('invalid_grant');
    expect(spent.message).not.toContain(tokens.refreshToken);
    expect(as.count({ grantType: 'refresh_token' })).toBe(refreshes + 2);

    await revokeToken(options, { token: next.refreshToken ?? '', tokenTypeHint: 'refresh_token' });
    expect(as.count({ endpoint: 'revocation', ok: true })).toBe(1);
    const revoked = await rejection(refreshAccessToken(options, { refreshToken: next.refreshToken ?? '' }));
    expect(revoked.reason).toBe('upstream_unauthorized');
  });

  it('refuses a callback whose state is another request’s, and reports an error the server sent back', async () => {
    const request = await buildAuthorizationRequest(options, { scopes: ['read'], resource: RESOURCE });
    const callbackUrl = await followAuthorization(request.url);
    const tokenRequests = as.count({ endpoint: 'token' });
    const mismatch = await rejection(
      exchangeAuthorizationCode(options, { callbackUrl, codeVerifier: request.codeVerifier, state: 'other' }),
    );
    expect(mismatch).toMatchObject({ reason: 'invalid_request', status: 400 });
    expect(as.count({ endpoint: 'token' })).toBe(tokenRequests);

    const denied = new URL(REDIRECT);
    denied.search = new URLSearchParams({
      error: 'access_denied',
      state: request.state,
      iss: as.issuer,
    }).toString();
    const refusal = await rejection(exchangeAuthorizationCode(options, { callbackUrl: denied, ...request }));
    expect(refusal.reason).toBe('upstream_unauthorized');
    expect(refusal.message).toContain('access_denied');
  });

  it('answers a wrong code verifier as a refused grant', async () => {
    const request = await buildAuthorizationRequest(options, { scopes: ['read'], resource: RESOURCE });
    const callbackUrl = await followAuthorization(request.url);
    const error = await rejection(
      exchangeAuthorizationCode(options, { ...request, callbackUrl, codeVerifier: 'x'.repeat(43) }),
    );
    expect(error.reason).toBe('upstream_unauthorized');
  });

  it('works from endpoints alone (no issuer): a public client, the server’s iss ignored', async () => {
    const endpointsOnly: OAuthClientOptions = {
      server: { authorizationUrl: as.endpoints.authorization, tokenUrl: as.endpoints.token },
      client: { clientId: 'public-app', redirectUri: REDIRECT },
      outbound,
      allowHttp: true,
    };
    const request = await buildAuthorizationRequest(endpointsOnly, { scopes: ['read'], resource: RESOURCE });
    const callbackUrl = await followAuthorization(request.url);
    const tokens = await exchangeAuthorizationCode(endpointsOnly, { callbackUrl, ...request });
    expect(claims(tokens.accessToken)).toMatchObject({ client_id: 'public-app', sub: 'alice' });
    await expect(revokeToken(endpointsOnly, { token: tokens.accessToken })).rejects.toMatchObject({
      reason: 'invalid_request',
    });
  });

  it('gets a client credentials token for a resource (basic and post authentication)', async () => {
    const before = as.count({ grantType: 'client_credentials', ok: true });
    const tokens = await clientCredentialsGrant(options, { scopes: ['read'], resource: RESOURCE });
    expect(claims(tokens.accessToken)).toMatchObject({ sub: 'app', aud: RESOURCE, scope: 'read' });
    expect(tokens.refreshToken).toBeUndefined();
    const posted = await clientCredentialsGrant(
      {
        ...options,
        client: { clientId: 'post-app', clientSecret: 'post-secret', authMethod: 'client_secret_post' },
      },
      { resource: RESOURCE },
    );
    expect(claims(posted.accessToken)).toMatchObject({ sub: 'post-app' });
    expect(as.count({ grantType: 'client_credentials', ok: true })).toBe(before + 2);
  });

  it('answers a wrong client secret as upstream_unauthorized without the secret in the message', async () => {
    const error = await rejection(
      clientCredentialsGrant({ ...options, client: { clientId: 'app', clientSecret: 'wrong-secret-value' } }),
    );
    expect(error).toMatchObject({ reason: 'upstream_unauthorized', status: 502 });
    expect(error.message).not.toContain('wrong-secret-value');
  });

  it('goes through the outbound policy: a private address is refused before anything is sent', async () => {
    const before = as.requests.length;
    const strict = createOutboundPolicy();
    const refused = await rejection(clientCredentialsGrant({ ...options, outbound: strict }));
    expect(refused).toMatchObject({ reason: 'outbound_refused', status: 403 });
    const byName = await rejection(
      discoverAuthorizationServer(as.issuer.replace('127.0.0.1', 'localhost'), {
        outbound: strict,
        allowHttp: true,
      }),
    );
    expect(byName.reason).toBe('outbound_refused');
    expect(as.requests.length).toBe(before);
  });

  it('refuses http URLs unless allowed', async () => {
    const error = await rejection(discoverAuthorizationServer(as.issuer, { outbound }));
    expect(error.reason).toBe('upstream_failed');
  });

  describe('behind a redirect', () => {
    let redirector: Server;
    let redirectorUrl: string;
    beforeAll(async () => {
      redirector = createServer((_request, response) => {
        response.writeHead(307, { location: as.endpoints.token }).end();
      });
      await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
      redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/token`;
    });
    afterAll(() => new Promise<void>((resolve) => redirector.close(() => resolve())));

    it('never follows it: the token request fails and the server behind it hears nothing', async () => {
      const before = as.count({ endpoint: 'token' });
      const error = await rejection(
        clientCredentialsGrant({ ...options, server: { tokenUrl: redirectorUrl } }, { resource: RESOURCE }),
      );
      expect(error.reason).toBe('upstream_failed');
      expect(as.count({ endpoint: 'token' })).toBe(before);
    });

    it('reports a discovery of something that is not an authorization server as upstream_failed', async () => {
      const error = await rejection(
        discoverAuthorizationServer(redirectorUrl.replace('/token', ''), { outbound, allowHttp: true }),
      );
      expect(error.reason).toBe('upstream_failed');
    });
  });
});
