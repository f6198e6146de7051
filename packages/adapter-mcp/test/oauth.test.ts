import { createOutboundPolicy } from '@cyrnel/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpConnection } from '../src/connection';
import { memoryCredentialStore, type OAuthCredentialStore } from '../src/oauth/credential-store';
import { createOAuthSession, type OAuthSession } from '../src/oauth/session';
import {
  authorizationUrlOf,
  oauthConnection,
  openAsPerson,
  type Scenario,
  startCallback,
  startScenario,
} from './oauth-harness';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A scenario's servers, a callback route, a session over a fresh store and its connection. */
async function setUp(
  name: string,
  extra: { preRegistered?: { client_id: string; client_secret: string }; outbound?: boolean } = {},
): Promise<{
  scenario: Scenario;
  store: OAuthCredentialStore;
  session: OAuthSession;
  connection: McpConnection;
  callback: Awaited<ReturnType<typeof startCallback>>;
}> {
  const scenario = await startScenario(name);
  let stopped = false;
  cleanups.push(async () => {
    if (!stopped) await scenario.stop();
  });
  const stop = scenario.stop;
  const tracked: Scenario = {
    serverUrl: scenario.serverUrl,
    stop: () => {
      stopped = true;
      return stop();
    },
  };
  const callback = await startCallback();
  cleanups.push(callback.close);
  const store = memoryCredentialStore();
  const session = createOAuthSession({
    serverUrl: scenario.serverUrl,
    store,
    redirectUrl: callback.redirectUrl,
    clientName: 'cyrnel',
    ...(extra.preRegistered ? { preRegistered: extra.preRegistered } : {}),
  });
  callback.route(session);
  const connection = oauthConnection(
    scenario.serverUrl,
    session,
    createOutboundPolicy({ allowPrivateUrls: true }),
  );
  cleanups.push(() => connection.close());
  return { scenario: tracked, store, session, connection, callback };
}

describe('MCP servers behind OAuth (the conformance suite’s authorization servers)', () => {
  it('asks for an authorization, stores what the callback brings, then calls with the token', async () => {
    const { scenario, store, connection } = await setUp('auth/metadata-default');
    const refusal = await connection.listTools().catch((error: unknown) => error);
    expect(refusal).toMatchObject({
      reason: 'upstream_unauthorized',
      message:
        'the MCP server of service guarded needs authorization: a person must open the authorization URL',
    });
    const url = new URL(authorizationUrlOf(refusal));
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(scenario.serverUrl);
    const pending = (await store.read()).pending;
    expect(pending?.state).toBe(url.searchParams.get('state'));
    // The error names where to go, never a secret: no verifier in it.
    expect(JSON.stringify({ ...(refusal as object), message: (refusal as Error).message })).not.toContain(
      pending?.codeVerifier,
    );

    expect(await openAsPerson(url.href)).toEqual({ status: 200, text: 'authorized' });
    const stored = await store.read();
    expect(stored.pending).toBeUndefined();
    expect(stored.tokens?.access_token).toMatch(/^test-token-/);
    expect(stored.client?.client_id).toBe('test-client-id');
    expect(stored.discovery?.resourceMetadataUrl).toBe(
      `${new URL(scenario.serverUrl).origin}/.well-known/oauth-protected-resource/mcp`,
    );

    expect((await connection.listTools()).map((tool) => tool.name)).toEqual(['test-tool']);
    const result = await connection.callTool('test-tool', {}, { timeoutMs: 10_000 });
    expect(result.content).toEqual([{ type: 'text', text: 'test' }]);
    const failures = (await scenario.stop()).filter(
      (check) => check.status !== 'SUCCESS' && check.status !== 'INFO',
    );
    expect(failures).toEqual([]);
  });

  it('refuses a callback whose state matches no authorization, and a state used twice', async () => {
    const { store, session, connection } = await setUp('auth/metadata-var1');
    const url = new URL(authorizationUrlOf(await connection.listTools().catch((error: unknown) => error)));
    await expect(
      session.finishAuthorization({ code: 'test-auth-code', state: 'forged' }),
    ).rejects.toMatchObject({
      reason: 'invalid_request',
      message: 'the authorization callback matches no authorization under way (unknown or reused state)',
    });
    // The forged callback did not end the real flow.
    expect((await store.read()).pending?.state).toBe(url.searchParams.get('state'));
    const state = url.searchParams.get('state') as string;
    expect((await openAsPerson(url.href)).status).toBe(200);
    await expect(session.finishAuthorization({ code: 'test-auth-code', state })).rejects.toMatchObject({
      reason: 'invalid_request',
    });
    expect((await connection.listTools()).length).toBe(1);
  });

  it('ends the flow on an error callback (the person said no)', async () => {
    const { store, session, connection } = await setUp('auth/metadata-var2');
    const url = new URL(authorizationUrlOf(await connection.listTools().catch((error: unknown) => error)));
    await expect(
      session.finishAuthorization({ error: 'access_denied', state: url.searchParams.get('state') as string }),
    ).rejects.toMatchObject({
      reason: 'invalid_request',
      message: 'the authorization server refused the authorization: access_denied',
    });
    const stored = await store.read();
    expect(stored.pending).toBeUndefined();
    expect(stored.tokens).toBeUndefined();
  });

  it('asks again with the union of scopes when a call needs more (step-up)', async () => {
    const { scenario, store, connection } = await setUp('auth/scope-step-up');
    const first = new URL(authorizationUrlOf(await connection.listTools().catch((error: unknown) => error)));
    expect(first.searchParams.get('scope')).toBe('mcp:basic');
    await openAsPerson(first.href);
    expect((await connection.listTools()).length).toBe(1);
    const refusal = await connection
      .callTool('test-tool', {}, { timeoutMs: 10_000 })
      .catch((error: unknown) => error);
    const second = new URL(authorizationUrlOf(refusal));
    expect(second.searchParams.get('scope')?.split(' ').sort()).toEqual(['mcp:basic', 'mcp:write']);
    await openAsPerson(second.href);
    expect((await store.read()).tokens?.scope?.split(' ').sort()).toEqual(['mcp:basic', 'mcp:write']);
    expect((await connection.callTool('test-tool', {}, { timeoutMs: 10_000 })).content).toEqual([
      { type: 'text', text: 'test' },
    ]);
    const failures = (await scenario.stop()).filter(
      (check) => check.status !== 'SUCCESS' && check.status !== 'INFO',
    );
    expect(failures).toEqual([]);
  });

  it('fails without asking a person again when the server wants a scope the token already has', async () => {
    const { scenario, connection } = await setUp('auth/scope-retry-limit');
    await openAsPerson(authorizationUrlOf(await connection.listTools().catch((error: unknown) => error)));
    const refusal = await connection.listTools().catch((error: unknown) => error);
    expect(refusal).toMatchObject({
      reason: 'upstream_unauthorized',
      message:
        'the MCP server of service guarded refused the call for want of scope mcp:admin, which the current authorization already grants: authorizing again cannot help',
    });
    expect((refusal as { details?: unknown }).details).toBeUndefined();
    const attempts = (await scenario.stop()).filter((check) => check.id === 'scope-retry-auth-attempt');
    expect(attempts.length).toBe(1);
  });

  it('uses a client registered by hand where the server offers no registration', async () => {
    const { scenario, store, connection } = await setUp('auth/pre-registration', {
      preRegistered: { client_id: 'pre-registered-client', client_secret: 'pre-registered-secret' },
    });
    await openAsPerson(authorizationUrlOf(await connection.listTools().catch((error: unknown) => error)));
    expect((await connection.listTools()).length).toBe(1);
    expect((await store.read()).client?.client_id).toBe('pre-registered-client');
    const checks = await scenario.stop();
    expect(checks.find((check) => check.id === 'pre-registration-auth')?.status).toBe('SUCCESS');
  });

  it('refuses a server whose metadata names another resource, before any authorization', async () => {
    const { scenario, store, connection } = await setUp('auth/resource-mismatch');
    const refusal = await connection.listTools().catch((error: unknown) => error);
    expect(refusal).toMatchObject({ reason: 'upstream_unauthorized' });
    expect((refusal as Error).message).toContain('https://evil.example.com/mcp');
    expect((await store.read()).pending).toBeUndefined();
    const checks = await scenario.stop();
    expect(checks.some((check) => check.id === 'authorization-request')).toBe(false);
  });

  it('asks for tokens itself with the service’s client credentials (no person)', async () => {
    const scenario = await startScenario('auth/client-credentials-basic');
    cleanups.push(() => scenario.stop());
    const store = memoryCredentialStore();
    const session = createOAuthSession({
      serverUrl: scenario.serverUrl,
      store,
      redirectUrl: 'http://127.0.0.1:1/oauth/callback',
      clientName: 'cyrnel',
      machine: {
        kind: 'client_secret',
        clientId: 'conformance-test-client',
        clientSecret: 'conformance-test-secret',
      },
    });
    const connection = oauthConnection(
      scenario.serverUrl,
      session,
      createOutboundPolicy({ allowPrivateUrls: true }),
    );
    cleanups.push(() => connection.close());
    expect((await connection.listTools()).map((tool) => tool.name)).toEqual(['test-tool']);
    expect((await store.read()).tokens?.access_token).toMatch(/^cc-token-/);
  });

  it('reaches the authorization server through the outbound policy', async () => {
    const scenario = await startScenario('auth/metadata-var3');
    cleanups.push(() => scenario.stop());
    const session = createOAuthSession({
      serverUrl: scenario.serverUrl,
      store: memoryCredentialStore(),
      redirectUrl: 'http://127.0.0.1:1/oauth/callback',
      clientName: 'cyrnel',
    });
    const serverPort = Number(new URL(scenario.serverUrl).port);
    // Only the MCP server's port is allowed: its authorization server listens on another.
    const connection = oauthConnection(scenario.serverUrl, session, {
      check(address, port) {
        if (port !== serverPort) throw new Error(`refusing to connect to ${address}:${port} (not allowed)`);
      },
    });
    cleanups.push(() => connection.close());
    await expect(connection.listTools()).rejects.toMatchObject({ reason: 'outbound_refused' });
  });
});
