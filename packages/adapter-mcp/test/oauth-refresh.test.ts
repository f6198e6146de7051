import { createOutboundPolicy } from '@cyrnel/core';
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { Events, OAuth2Server } from 'oauth2-mock-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { memoryCredentialStore } from '../src/oauth/credential-store';
import { createOAuthSession } from '../src/oauth/session';
import { authorizationUrlOf, oauthConnection, openAsPerson, startCallback } from './oauth-harness';

/**
 * An MCP server behind oauth2-mock-server (a real authorization server: PKCE, refresh tokens,
 * signed JWTs). The MCP server takes any bearer token it has not revoked, and publishes its
 * protected resource metadata naming the authorization server.
 */
describe('refresh against oauth2-mock-server', () => {
  const authorizationServer = new OAuth2Server();
  const revoked = new Set<string>();
  const grants: string[] = [];
  let server: ReturnType<typeof serve>;
  let url: string;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    await authorizationServer.issuer.keys.generate('RS256');
    await authorizationServer.start(0, '127.0.0.1');
    // Every token differs (the same claims in the same second would sign alike).
    authorizationServer.service.on(Events.BeforeTokenSigning, (token) => {
      token.payload.jti = crypto.randomUUID();
    });
    authorizationServer.service.on(Events.BeforeResponse, (_response, request) => {
      grants.push(String((request as unknown as { body: Record<string, unknown> }).body.grant_type));
    });
    const handler = createMcpHandler(() => {
      const mcp = new McpServer({ name: 'behind-oauth', version: '1.0.0' });
      mcp.registerTool('whoami', { inputSchema: z.object({}) }, async () => ({
        content: [{ type: 'text', text: 'johndoe' }],
      }));
      return mcp;
    });
    server = serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request) => {
        const origin = new URL(request.url).origin;
        if (new URL(request.url).pathname === '/.well-known/oauth-protected-resource/mcp')
          return Response.json({
            resource: `${origin}/mcp`,
            authorization_servers: [authorizationServer.issuer.url],
          });
        const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
        if (!token || revoked.has(token))
          return new Response(null, {
            status: 401,
            headers: {
              'www-authenticate': `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
            },
          });
        return handler.fetch(request);
      },
    });
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    authorizationServer.service.removeAllListeners(Events.BeforeResponse);
    authorizationServer.service.on(Events.BeforeResponse, (_response, request) => {
      grants.push(String((request as unknown as { body: Record<string, unknown> }).body.grant_type));
    });
    grants.length = 0;
  });
  afterAll(async () => {
    server.close();
    await authorizationServer.stop();
  });

  async function authorized() {
    const callback = await startCallback();
    cleanups.push(callback.close);
    const store = memoryCredentialStore();
    const session = createOAuthSession({
      serverUrl: url,
      store,
      redirectUrl: callback.redirectUrl,
      clientName: 'cyrnel',
      // The mock server registers nobody: a client given by hand, public (PKCE only).
      preRegistered: { client_id: 'cyrnel-test', token_endpoint_auth_method: 'none' },
    });
    callback.route(session);
    const connection = oauthConnection(url, session, createOutboundPolicy({ allowPrivateUrls: true }));
    cleanups.push(() => connection.close());
    const refusal = await connection.listTools().catch((error: unknown) => error);
    expect((await openAsPerson(authorizationUrlOf(refusal))).status).toBe(200);
    const first = (await store.read()).tokens;
    expect(first?.refresh_token).toEqual(expect.any(String));
    return { store, connection, first };
  }

  it('refreshes a token the server no longer takes, without a person', async () => {
    const { store, connection, first } = await authorized();
    expect((await connection.callTool('whoami', {}, { timeoutMs: 10_000 })).content).toEqual([
      { type: 'text', text: 'johndoe' },
    ]);
    revoked.add(first?.access_token as string);
    expect((await connection.callTool('whoami', {}, { timeoutMs: 10_000 })).content).toEqual([
      { type: 'text', text: 'johndoe' },
    ]);
    const second = (await store.read()).tokens;
    expect(second?.access_token).not.toBe(first?.access_token);
    expect(grants).toEqual(['authorization_code', 'refresh_token']);
  });

  it('asks a person again when the refresh token is refused', async () => {
    const { store, connection, first } = await authorized();
    authorizationServer.service.once(Events.BeforeResponse, (response) => {
      response.statusCode = 400;
      response.body = { error: 'invalid_grant', error_description: 'refresh token revoked' };
    });
    revoked.add(first?.access_token as string);
    const refusal = await connection.listTools().catch((error: unknown) => error);
    expect(refusal).toMatchObject({
      reason: 'upstream_unauthorized',
      message:
        'the MCP server of service guarded needs authorization: a person must open the authorization URL',
    });
    // The refused tokens are gone; a new flow waits for its callback.
    const stored = await store.read();
    expect(stored.tokens).toBeUndefined();
    expect(stored.pending?.state).toBe(new URL(authorizationUrlOf(refusal)).searchParams.get('state'));
  });
});
