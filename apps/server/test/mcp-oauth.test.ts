import { createSign, generateKeyPairSync } from 'node:crypto';
import { type AuthorizationServer, startAuthorizationServer } from '@cyrnel/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, type Json, startTestServer, tempDir } from './helpers';

const KEY = 'oauth-admin-key';
const TOOLS = [
  'check_typescript',
  'execute_typescript',
  'get_process',
  'get_tool_types',
  'search_tools',
  'wait_process',
];
const basic = (id: string) => `Basic ${Buffer.from(`${id}:${id}-secret`).toString('base64')}`;

/** A client credentials token of `clientId` from `as` for `resource`. */
async function tokenFor(as: AuthorizationServer, clientId: string, resource: string): Promise<string> {
  const response = await fetch(as.endpoints.token, {
    method: 'POST',
    headers: { authorization: basic(clientId) },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'read' }),
  });
  const answer = (await response.json()) as { access_token?: string; error?: string };
  if (!answer.access_token) throw new Error(`no token: ${answer.error}`);
  return answer.access_token;
}

/** `jwt` with its signature made by another key under the same `kid`. */
function resigned(jwt: string): string {
  const [header, payload] = jwt.split('.');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signature = createSign('RSA-SHA256')
    .update(`${header}.${payload}`)
    .sign(privateKey)
    .toString('base64url');
  return `${header}.${payload}.${signature}`;
}

describe('signing in to /mcp with OAuth', () => {
  let as: AuthorizationServer;
  let other: AuthorizationServer;
  let server: RunningServer;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;
  let resource: string;
  const clients: Client[] = [];

  const connect = async (token: string) => {
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(resource), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  /** A bare MCP initialize with `token`: the status and challenge a refusal answers. */
  const initialize = async (token?: string) => {
    const response = await fetch(resource, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    await response.body?.cancel();
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };

  beforeAll(async () => {
    const clientsOf = ['alpha', 'beta'].map((id) => ({ clientId: id, clientSecret: `${id}-secret` }));
    as = await startAuthorizationServer({ clients: clientsOf });
    other = await startAuthorizationServer({ clients: clientsOf });
    dir = await tempDir();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      urlAllowCidrs: ['127.0.0.1/32'],
      oauthIssuer: as.issuer,
    });
    resource = `${server.url}/mcp`;
    api = apiClient(server.url, KEY);
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.close();
    await as?.close();
    await other?.close();
    await dir?.remove();
  });

  it('publishes its protected resource metadata without a key, at both well-known paths', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(await response.json()).toEqual({
        resource,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ['header'],
        resource_name: 'cyrnel',
      });
    }
  });

  it('answers 401 with the resource metadata challenge to a request without a credential', async () => {
    expect(await initialize()).toEqual({
      status: 401,
      challenge: `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    });
    // The rest of the API keeps its plain challenge and takes no token.
    const processes = await fetch(`${server.url}/processes`, {
      headers: { authorization: `Bearer ${await tokenFor(as, 'alpha', resource)}` },
    });
    expect(processes.status).toBe(401);
    expect(processes.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('lets the official MCP client connect with an access token and list the tools', async () => {
    const client = await connect(await tokenFor(as, 'alpha', resource));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    // Static keys work unchanged beside tokens.
    const byKey = await connect(KEY);
    expect((await byKey.listTools()).tools).toHaveLength(TOOLS.length);
  });

  it('refuses a wrong audience, an expired token, a wrong signature and an unknown issuer', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = await tokenFor(as, 'alpha', resource);
    const refused = {
      audience: await tokenFor(as, 'alpha', 'https://elsewhere.example/mcp'),
      expired: await as.signJwt({ sub: 'alpha', aud: resource, iat: now - 7200, exp: now - 3600 }),
      signature: resigned(good),
      issuer: await tokenFor(other, 'alpha', resource),
      forgedIssuer: await as.signJwt({ sub: 'alpha', aud: resource, iss: other.issuer }),
      noSubject: await as.signJwt({ aud: resource }),
      notAJwt: 'plainly-not-a-token',
    };
    for (const [what, token] of Object.entries(refused)) {
      expect(await initialize(token), what).toEqual({
        status: 401,
        challenge: `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
      });
    }
    expect((await initialize(good)).status).toBe(200);
  });

  it('makes one principal per subject, and principals do not see each other’s processes', async () => {
    const alpha = await connect(await tokenFor(as, 'alpha', resource));
    const alphaAgain = await connect(await tokenFor(as, 'alpha', resource));
    const beta = await connect(await tokenFor(as, 'beta', resource));
    const run = await alpha.callTool({
      name: 'execute_typescript',
      arguments: { code: 'cyrnel.output({ who: 1 })' },
    });
    expect(run.structuredContent).toMatchObject({ exitState: 'success', output: { who: 1 } });
    const processId = (run.structuredContent as Json).processId;
    // The same subject with a new token: the same principal, its process visible.
    const mine = await alphaAgain.callTool({ name: 'get_process', arguments: { processId } });
    expect(mine.structuredContent).toMatchObject({ processId, output: { who: 1 } });
    // Another subject: another principal, the process unknown to it.
    const theirs = await beta.callTool({ name: 'get_process', arguments: { processId } });
    expect(theirs.isError).toBe(true);
    expect(JSON.stringify(theirs.content)).toContain('not found');

    const principals = (await api('GET', '/principals')).body as Json;
    const names = (principals.items as Json[]).map((principal) => principal.name);
    expect(names.filter((name) => name === 'alpha')).toHaveLength(1);
    expect(names.filter((name) => name === 'beta')).toHaveLength(1);
    const record = (await api('GET', `/processes/${processId}`)).body as Json;
    const alphaPrincipal = (principals.items as Json[]).find((principal) => principal.name === 'alpha');
    expect(record.keyId).toBe(`principal:${alphaPrincipal?.id}`);
  });

  it('takes the same tokens and answers the same challenge on /mcp/tools (the resource covers it)', async () => {
    const tools = new Client({ name: 'oauth-tools-test', version: '1.0.0' });
    await tools.connect(
      new StreamableHTTPClientTransport(new URL(`${resource}/tools`), {
        requestInit: { headers: { authorization: `Bearer ${await tokenFor(as, 'alpha', resource)}` } },
      }),
    );
    clients.push(tools);
    expect((await tools.listTools()).tools).toEqual([]);
    const anonymous = await fetch(`${resource}/tools`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});
