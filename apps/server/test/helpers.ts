import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type RunningServer, type StartServerOptions, startServer } from '../src/index';
import { shopSpec, startUpstream, UPSTREAM_KEY, type Upstream } from './shop-upstream';

export { shopSpec, startUpstream, UPSTREAM_KEY, type Upstream };

/**
 * `--default-policy allow`: every tool call runs without asking. Out of the box every tool that is
 * not read-only asks a person first, so a program calling one would wait for an approval no test
 * gives: the tests of other features allow every call; the tests of the policies set their own.
 */
export const ALLOW_EVERY_CALL = 'allow';

/**
 * `--warm-sandboxes 0` for a test server: no sandbox process is forked before the first process
 * runs. Most test servers run few processes or none, and forking the pool's children at every
 * start was a large share of the suite's CPU time; a test of the warm pool gives its own value.
 */
export const NO_WARM_SANDBOXES = 0;

/**
 * `startServer` for a test: every tool call allowed ({@link ALLOW_EVERY_CALL}) and no sandbox
 * process forked before the first run ({@link NO_WARM_SANDBOXES}) unless `options` say otherwise.
 */
export function startTestServer(options: StartServerOptions): Promise<RunningServer> {
  return startServer({ defaultPolicy: ALLOW_EVERY_CALL, warmSandboxes: NO_WARM_SANDBOXES, ...options });
}

/** A fresh temporary directory and its removal. */
export async function tempDir(prefix = 'cyrnel-server-'): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** An OpenAPI document with `count` operations `listThings<i>`, for discovery over a large catalog. */
export function manyToolsSpec(count: number): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    paths[`/things${i}`] = {
      get: {
        operationId: `listThings${i}`,
        summary: `List things of kind ${i}`,
        description: `Lists every thing of kind ${i} with its owner and labels`,
        responses: { '200': { description: 'ok' } },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Things', version: '1.0.0' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths,
  };
}

/** The process code of the agent flow: two tool calls, one combined output. */
export const AGENT_CODE = `
const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
const orders = await cyrnel.services.shop.tools.listOrders.invoke({ query: { userId: 7 } });
console.log('fetched', user.status, orders.status);
console.error('a warning');
const total: number = orders.body.reduce((sum: number, order: { amount: number }) => sum + order.amount, 0);
cyrnel.output({ name: user.body.name });
cyrnel.output({ orderCount: orders.body.length, total });
`;

/** Parsed JSON of a response: tests index into it freely. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON read by assertions
export type Json = any;

/** A JSON (or text) response read whole. */
export interface ApiResponse<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A tiny client bound to a base URL and key. */
export function apiClient(baseUrl: string, apiKey?: string) {
  return async <T = Json>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    const isJson = response.headers.get('content-type')?.includes('application/json');
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: isJson ? JSON.parse(text) : text,
    } as ApiResponse<T>;
  };
}

/**
 * A server on a fresh data directory and a free port for the tests of one `describe` block:
 * started before them, closed (and its directory removed) after them; every tool call allowed
 * unless `options` give a `defaultPolicy` ({@link startTestServer}). `api` and `url()` may only be
 * used inside the tests.
 */
export function useServer(options: Omit<StartServerOptions, 'dataDir' | 'port'> = {}): {
  api: ReturnType<typeof apiClient>;
  url(): string;
} {
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  let server: RunningServer | undefined;
  let client: ReturnType<typeof apiClient> | undefined;
  beforeAll(async () => {
    dir = await tempDir();
    server = await startTestServer({ dataDir: dir.path, port: 0, ...options });
    client = apiClient(server.url, options.apiKey);
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useServer: the server is not started yet');
    return value;
  };
  return {
    api: (method, path, body, headers) => started(client)(method, path, body, headers),
    url: () => started(server).url,
  };
}

/**
 * {@link useServer} with the shop upstream ({@link startUpstream}) installed and enabled as
 * service `shop` with its key (described by `spec`, {@link shopSpec} by default): what most tests
 * of runs against a real API need. `upstream()` may
 * only be used inside the tests.
 */
export function useShopServer(
  options: Omit<StartServerOptions, 'dataDir' | 'port'> = {},
  spec: (upstreamUrl: string) => unknown = shopSpec,
): ReturnType<typeof useServer> & { upstream(): Upstream } {
  let upstream: Upstream | undefined;
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  const server = useServer({ urlAllowCidrs: ['127.0.0.1/32'], ...options });
  beforeAll(async () => {
    const installed = await server.api('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(spec((upstream as Upstream).url)),
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    if (installed.status !== 201) throw new Error(`installing the shop failed: ${installed.text}`);
  });
  afterAll(async () => {
    await upstream?.close();
  });
  return {
    ...server,
    upstream: () => {
      if (!upstream) throw new Error('useShopServer: the upstream is not started yet');
      return upstream;
    },
  };
}

/** Parse a whole SSE stream into `{event, data}` pairs (comments dropped). */
export function parseSse(text: string): { event: string; data: Json }[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line !== '' && !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

/** Write a custom module into `<dataDir>/modules/<dir>/`: its `module.json` and `index.mjs`. */
export async function writeModule(
  dataDir: string,
  dir: string,
  manifest: Record<string, unknown> | string,
  source: string,
): Promise<string> {
  const path = join(dataDir, 'modules', dir);
  await mkdir(path, { recursive: true });
  await writeFile(
    join(path, 'module.json'),
    typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
  );
  await writeFile(join(path, 'index.mjs'), source);
  return path;
}

/**
 * A custom adapter whose `hydrateService` always throws (enabling it rolls back and answers 502). Its
 * definitions have one tool `ping`; its module config and secrets have one field each.
 */
export const FLAKY_ADAPTER = `
export default {
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { greeting: { type: 'string', default: 'hello' } },
  },
  secretsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { token: { type: 'string' } },
  },
  instantiate() {
    return {
      async setup() {},
      async teardown() {},
      async generateDefinition(text) {
        return {
          name: 'Flaky ' + text.trim(),
          description: 'a service that cannot be hydrated',
          configSchema: { type: 'object' },
          secretsSchema: { type: 'object' },
          tools: [{ id: 'ping', name: 'ping', description: 'answers pong', inputSchema: { type: 'object' }, outputSchema: {}, adapterDomain: {} }],
          adapterDomain: {},
        };
      },
      async hydrateService() {
        throw new Error('the flaky backend refused to connect');
      },
      async dehydrateService() {},
      async invoke() {
        return 'pong';
      },
    };
  },
};
`;

/** The `module.json` of a custom adapter module. */
export function adapterManifest(id: string): Record<string, unknown> {
  return {
    id,
    name: id,
    description: `custom adapter ${id}`,
    type: 'adapter',
    main: 'index.mjs',
    version: '1.0.0',
  };
}

/** mulberry32: a tiny seeded PRNG, so a failing run (or a drawn selection) can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
