/**
 * The client the MCP conformance suite (`@modelcontextprotocol/conformance`) launches for its
 * `auth/*` scenarios: `node client.mjs <server-url>`, the scenario in `MCP_CONFORMANCE_SCENARIO`,
 * its data (pre-registered clients, keys) in `MCP_CONFORMANCE_CONTEXT`.
 *
 * It plays both sides cyrnel will have: the adapter's connection (its guarded fetch, the OAuth
 * session over an in-memory credential store) and a tiny host — an HTTP callback route
 * (`GET /oauth/callback?code&state`) that hands the callback to the session its `state` names,
 * and a "person" who opens the authorization URL (a fetch: the suite's authorization servers
 * redirect back at once, without a login page). It lists the tools and calls `test-tool`,
 * authorizing whenever a call asks for it, at most twice per call.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isCyrnelError, type ModuleLogger } from '@cyrnel/sdk';
import { createAnswerReader } from '../src/answer-reader';
import { createConnection, type McpConnection } from '../src/connection';
import { createJsonTextStash } from '../src/json-text-stash';
import { memoryCredentialStore } from '../src/oauth/credential-store';
import { createOAuthSession, type OAuthSession } from '../src/oauth/session';
import { machineGrantOf } from './machine-grant';

/** The client ID metadata document URL the suite's `auth/basic-cimd` expects. */
const CIMD_URL = process.env.CONFORMANCE_CIMD_URL ?? 'https://conformance-test.local/client-metadata.json';
/** Authorizations one call may ask for (a first one, a step-up) before it fails. */
const MAX_AUTHORIZATIONS_PER_CALL = 2;

const serverUrl = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>;

const log = (line: string) => process.stderr.write(`${line}\n`);
const logger: ModuleLogger = {
  debug: () => {},
  info: (message, fields) => log(`info ${message} ${JSON.stringify(fields ?? {})}`),
  warn: (message, fields) => log(`warn ${message} ${JSON.stringify(fields ?? {})}`),
  error: (message, fields) => log(`error ${message} ${JSON.stringify(fields ?? {})}`),
};

/** The host's callback route: `state` → the session that started that authorization. */
async function startCallbackServer(sessions: Map<string, OAuthSession>) {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/oauth/callback') {
      response.writeHead(404).end();
      return;
    }
    const query = Object.fromEntries(url.searchParams) as Record<string, string>;
    const session = query.state ? sessions.get(query.state) : undefined;
    if (!session) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('unknown state');
      return;
    }
    sessions.delete(query.state as string);
    try {
      await session.finishAuthorization(query);
      response.writeHead(200, { 'content-type': 'text/plain' }).end('authorized: you may close this page');
    } catch (error) {
      log(`callback failed: ${(error as Error).message}`);
      response.writeHead(400, { 'content-type': 'text/plain' }).end((error as Error).message);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { redirectUrl: `http://127.0.0.1:${port}/oauth/callback`, close: () => server.close() };
}

/** A person opening the authorization URL: the suite's servers redirect to the callback at once. */
async function authorizeAsPerson(authorizationUrl: string, redirectUrl: string): Promise<void> {
  let url = authorizationUrl;
  for (let hop = 0; hop < 5; hop++) {
    const answer = await fetch(url, { redirect: 'manual' });
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400 && location) {
      url = new URL(location, url).href;
      continue;
    }
    if (!url.startsWith(redirectUrl)) throw new Error(`the authorization page answered ${answer.status}`);
    if (!answer.ok) throw new Error(`the callback answered ${answer.status}: ${await answer.text()}`);
    return;
  }
  throw new Error('too many redirects while authorizing');
}

async function main(): Promise<void> {
  if (!serverUrl) throw new Error('usage: client.mjs <server-url>');
  const sessions = new Map<string, OAuthSession>();
  const callback = await startCallbackServer(sessions);
  const store = memoryCredentialStore();
  const machine = machineGrantOf(scenario, context);
  const session = createOAuthSession({
    serverUrl,
    store,
    redirectUrl: callback.redirectUrl,
    clientName: 'cyrnel',
    clientMetadataUrl: CIMD_URL,
    ...(scenario === 'auth/pre-registration'
      ? {
          preRegistered: {
            client_id: context.client_id as string,
            client_secret: context.client_secret as string,
          },
        }
      : {}),
    ...(machine ? { machine } : {}),
    // The back-compat scenario's metadata names issuer `<server>/oauth` at `<server>/.well-known/…`.
    ...(process.env.CONFORMANCE_SKIP_ISSUER_CHECK === '1' ? { skipIssuerMetadataValidation: true } : {}),
  });
  const connection: McpConnection = createConnection({
    spec: { transport: 'http', url: serverUrl, headers: {} },
    label: 'service conformance',
    allowedCommands: [],
    clientVersion: '0.0.0',
    connectTimeoutMs: 10_000,
    logger,
    maxAnswerBytes: 16 * 1024 * 1024,
    answers: createAnswerReader({
      parser: () => {
        throw new Error('no answer of the conformance scenarios is large enough for a worker');
      },
      limits: { maxDepth: 64, maxElements: 1_000_000 },
      maxBytes: 16 * 1024 * 1024,
      jsonTextKey: 'cyrnel-json-text-conformance',
      stash: createJsonTextStash(),
      logger,
      label: 'service conformance',
    }),
    oauth: session,
  });

  /** One call, authorizing (as the host and a person would) when it asks for it. */
  const authorized = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    for (let round = 0; ; round++) {
      try {
        return await call();
      } catch (error) {
        const authorization = isCyrnelError(error)
          ? (error.details as { authorization?: { url: string } } | undefined)?.authorization
          : undefined;
        if (!authorization || round >= MAX_AUTHORIZATIONS_PER_CALL) throw error;
        const state = new URL(authorization.url).searchParams.get('state');
        if (!state) throw new Error('the authorization URL has no state');
        log(`${what}: authorization needed (round ${round + 1})`);
        sessions.set(state, session);
        await authorizeAsPerson(authorization.url, callback.redirectUrl);
      }
    }
  };

  try {
    const tools = await authorized('tools/list', () => connection.listTools());
    log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);
    if (tools.some((tool) => tool.name === 'test-tool')) {
      const result = await authorized('tools/call', () =>
        connection.callTool('test-tool', {}, { timeoutMs: 10_000 }),
      );
      log(`test-tool: ${JSON.stringify(result.content)}`);
    }
  } finally {
    await connection.close();
    callback.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`failed: ${isCyrnelError(error) ? `${error.reason}: ` : ''}${(error as Error).message}`);
    process.exit(1);
  },
);
