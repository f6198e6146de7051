import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { OutboundPolicy } from '@cyrnel/sdk';
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

/** A conformance scenario's servers, started by the suite's interactive mode. */
export interface Scenario {
  readonly serverUrl: string;
  /** Stops the servers and answers the suite's checks (id and status) of what the client did. */
  stop(): Promise<{ id: string; status: string; description: string }[]>;
}

/** Start scenario `name` (`auth/metadata-default`) and wait for its server URL. */
export async function startScenario(name: string): Promise<Scenario> {
  const child: ChildProcess = spawn(process.execPath, [SUITE, 'client', '--scenario', name, '--verbose'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const serverUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`scenario ${name} did not start: ${output}`)), 20_000);
    child.stdout?.on('data', () => {
      const match = output.match(/Server URL: (\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.on('exit', () => reject(new Error(`scenario ${name} exited: ${output}`)));
  });
  return {
    serverUrl,
    async stop() {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      const text = output.slice(output.indexOf('Checks:') + 'Checks:'.length);
      return JSON.parse(text.slice(0, text.lastIndexOf(']') + 1));
    },
  };
}

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
