import { cp } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RunningServer } from '../src/index';
import { ASKING_POLICY, askingShopSpec } from './approval-helpers';
import { apiClient, startTestServer, startUpstream, tempDir, UPSTREAM_KEY, type Upstream } from './helpers';

/** The built CLI the bridge tests start (`cyrnel-server mcp …`). */
export const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** The arguments of a stdio bridge: to a running server, or embedding a host on a data directory. */
export type BridgeTarget = { readonly url: string; readonly apiKey: string } | { readonly dataDir: string };

/** The command, arguments and environment of `cyrnel-server mcp` for `target` (nothing else inherited). */
function bridgeCommand(target: BridgeTarget): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  const PATH = process.env.PATH ?? '';
  return 'dataDir' in target
    ? {
        command: process.execPath,
        args: [CLI, 'mcp', '--embedded', '--data-dir', target.dataDir],
        env: { PATH },
      }
    : {
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: { PATH, CYRNEL_URL: target.url, CYRNEL_API_KEY: target.apiKey },
      };
}

/** A stdio transport of the v2 client SDK to a bridge (its log is piped, not shown). */
export function bridgeTransport(target: BridgeTarget): StdioClientTransport {
  return new StdioClientTransport({ ...bridgeCommand(target), stderr: 'pipe' });
}

/** A stdio transport of the 1.x client SDK to a bridge (its log is piped, not shown). */
export function bridgeTransportV1(target: BridgeTarget): StdioTransportV1 {
  return new StdioTransportV1({ ...bridgeCommand(target), stderr: 'pipe' });
}

/** What {@link useAskingHosts} gives a suite once its `beforeAll` ran. */
export interface AskingHosts {
  /** The running server holding the asking shop (loopback upstream allowed). */
  server(): RunningServer;
  upstream(): Upstream;
  /** An agent key of the running server. */
  agentKey(): string;
  /** A fresh data directory holding the asking shop (an embedded host may not share one). */
  embeddedDir(): Promise<{ path: string; remove(): Promise<void> }>;
}

/**
 * The hosts of the stdio bridge tests: a server on a data directory of its own, and a data
 * directory installed once (the shop whose `createOrder` asks for approval) that each embedded
 * host gets a copy of. Registers the suite's `beforeAll`/`afterAll`.
 */
export function useAskingHosts(adminKey: string): AskingHosts {
  let server: RunningServer | undefined;
  let upstream: Upstream | undefined;
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  let installed: Awaited<ReturnType<typeof tempDir>> | undefined;
  let agentKey: string | undefined;

  const install = async (url: string) => {
    const response = await apiClient(url, adminKey)('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(askingShopSpec((upstream as Upstream).url)),
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    expect(response.status).toBe(201);
  };

  beforeAll(async () => {
    upstream = await startUpstream();
    installed = await tempDir('cyrnel-installed-');
    const once = await startTestServer({
      dataDir: installed.path,
      port: 0,
      apiKey: adminKey,
      defaultPolicy: ASKING_POLICY,
    });
    await install(once.url);
    await once.close();
    dir = await tempDir();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: adminKey,
      urlAllowCidrs: ['127.0.0.1/32'],
      defaultPolicy: ASKING_POLICY,
    });
    await install(server.url);
    const created = await apiClient(server.url, adminKey)('POST', '/keys', {
      name: 'desktop',
      role: 'agent',
    });
    agentKey = created.body.key;
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dir?.remove();
    await installed?.remove();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useAskingHosts: ${what} is not ready before beforeAll ran`);
    return value;
  };
  return {
    server: () => ready(server, 'the server'),
    upstream: () => ready(upstream, 'the upstream'),
    agentKey: () => ready(agentKey, 'the agent key'),
    embeddedDir: async () => {
      const fresh = await tempDir('cyrnel-embedded-');
      await cp(ready(installed, 'the installed data directory').path, fresh.path, { recursive: true });
      return fresh;
    },
  };
}
