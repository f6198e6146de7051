import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { OutboundPolicy } from '@cyrnel/sdk';
import { type ConformanceScenario, startConformanceScenario } from '@cyrnel/testing';
import { createAnswerReader } from '../src/answer-reader';
import { createConnection, type McpConnection } from '../src/connection';
import { createJsonTextStash } from '../src/json-text-stash';
import type { OAuthSession } from '../src/oauth/session';

const require = createRequire(import.meta.url);
/** The conformance suite's CLI: its scenarios are real MCP servers behind real authorization servers. */
export const SUITE = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

/** Start scenario `name` (`auth/metadata-default`) of the suite and wait for its server URL. */
export type Scenario = ConformanceScenario;
export const startScenario = (name: string): Promise<ConformanceScenario> =>
  startConformanceScenario(SUITE, name);

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The adapter's connection to an HTTP MCP server, with an OAuth session. */
export function oauthConnection(
  serverUrl: string,
  oauth: OAuthSession,
  outbound?: OutboundPolicy,
): McpConnection {
  return createConnection({
    spec: { transport: 'http', url: serverUrl, headers: {} },
    label: 'service guarded',
    allowedCommands: [],
    clientVersion: '0.0.0',
    connectTimeoutMs: 10_000,
    logger: silent,
    maxAnswerBytes: 16 * 1024 * 1024,
    answers: createAnswerReader({
      parser: () => {
        throw new Error('no answer here is large enough for a worker');
      },
      limits: { maxDepth: 64, maxElements: 1_000_000 },
      maxBytes: 16 * 1024 * 1024,
      jsonTextKey: 'cyrnel-json-text-test',
      stash: createJsonTextStash(),
      logger: silent,
      label: 'service guarded',
    }),
    oauth,
    ...(outbound ? { outbound } : {}),
  });
}

/**
 * A host's callback route: `GET /oauth/callback?code&state` handed to `session`; answers what
 * it received and how it went.
 */
export async function startCallback(): Promise<{
  redirectUrl: string;
  route(session: OAuthSession): void;
  received: Record<string, string>[];
  close(): Promise<void>;
}> {
  let session: OAuthSession | undefined;
  const received: Record<string, string>[] = [];
  const server: Server = createServer(async (request, response) => {
    const query = Object.fromEntries(new URL(request.url ?? '/', 'http://127.0.0.1').searchParams);
    received.push(query);
    try {
      await session?.finishAuthorization(query);
      response.writeHead(200).end('authorized');
    } catch (error) {
      response.writeHead(400).end((error as Error).message);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/oauth/callback`,
    route: (next) => {
      session = next;
    },
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A person opening an authorization URL; the suite's servers redirect to the callback at once. */
export async function openAsPerson(authorizationUrl: string): Promise<{ status: number; text: string }> {
  const page = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = page.headers.get('location');
  if (!location) throw new Error(`the authorization page answered ${page.status} without a redirect`);
  const callback = await fetch(location);
  return { status: callback.status, text: await callback.text() };
}

/** The authorization URL in an error of a call that needs one. */
export function authorizationUrlOf(error: unknown): string {
  const url = (error as { details?: { authorization?: { url?: string } } }).details?.authorization?.url;
  if (!url) throw new Error(`not an authorization error: ${(error as Error).message}`);
  return url;
}
