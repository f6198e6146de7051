import { existsSync } from 'node:fs';
import { type AddressInfo, isIP } from 'node:net';
import { createOutboundPolicy, loadSecretsKey, type OwnEndpoint } from '@cyrnel/core';
import { createApp } from '@cyrnel/http';
import { MAX_JSON_DEPTH } from '@cyrnel/sdk';
import { serve } from '@hono/node-server';
import { version as SERVER_VERSION } from '../package.json';
import { assertSafeBind } from './assert-safe-bind';
import { composeHost } from './compose-host';
import { createSilentLogger, type ServerLogger } from './create-logger';
import { defaultDatabase } from './database-url';
import { mcpRouteGroup } from './mcp-route';
import { prepareDataDir } from './prepare-data-dir';
import { createRequestTracker, type FetchHandler } from './request-tracker';
import type { ServerConfig } from './server-config';
import { uiRouteGroup } from './ui-route';

/** Options of {@link startServer}: any {@link ServerConfig} field (defaults as the binary's), plus a logger. */
export interface StartServerOptions extends Partial<ServerConfig> {
  /** Data directory (required: tests and embedders must choose one). */
  dataDir: string;
  /** Logger; silent when omitted (the `listening` announcement included). */
  logger?: ServerLogger;
  /** Interval of SSE heartbeats. Default 15000. */
  heartbeatMs?: number;
  /** Unsent event JSON one events stream may hold before it is dropped. Default 32 MiB. */
  maxEventQueueBytes?: number;
}

/** A running server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:9371`. */
  readonly url: string;
  /** The bound port (useful with port 0). */
  readonly port: number;
  /**
   * Stop accepting requests, give requests in flight and running processes the shutdown grace,
   * kill and record the rest, close the database.
   */
  close(): Promise<void>;
}

/**
 * Start cyrnel: the store (`database`, by default SQLite in the data directory), the core host with the built-in
 * `openapi` and `typescript-ivm` modules, and the HTTP API.
 *
 * @example
 * const server = await startServer({ dataDir: '/tmp/cyrnel', port: 0 });
 * await fetch(`${server.url}/health`);
 * await server.close();
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const logger = options.logger ?? createSilentLogger();
  const host = options.host ?? '127.0.0.1';
  const apiKey = options.apiKey === '' ? undefined : options.apiKey;
  const dataDir = options.dataDir;
  const database = options.database ?? defaultDatabase(dataDir);
  // Without a database file there is no stored key: refuse before creating anything.
  if (!existsSync(database.path)) assertSafeBind(host, apiKey, options.insecure === true);
  await prepareDataDir(dataDir, logger);
  const secrets = loadSecretsKey({
    dataDir,
    env: {
      CYRNEL_SECRETS_KEY: options.secretsKey,
      CYRNEL_SECRETS_PREVIOUS_KEYS: (options.secretsPreviousKeys ?? []).join(','),
    },
    logger,
  });
  const requestedPort = options.port ?? 9371;
  // Tool calls and definition downloads share one policy: the guard's switches, and never this
  // server itself; with port 0 the real port is only known after listen, which sets it here
  // before any request is served.
  let ownEndpoint: OwnEndpoint | undefined =
    requestedPort === 0 ? undefined : { address: host, port: requestedPort };
  const outbound = createOutboundPolicy({
    allowPrivateUrls: options.allowPrivateUrls ?? false,
    allowCidrs: options.urlAllowCidrs ?? [],
    denyCidrs: options.urlDenyCidrs ?? [],
    ownEndpoint: () => ownEndpoint,
  });
  const composed = await composeHost({
    dataDir,
    database,
    secretsKey: secrets.key,
    secretsPreviousKeys: secrets.previousKeys,
    limits: {
      maxCodeBytes: options.maxCodeBytes ?? 100 * KIB,
      maxStdoutBytes: options.maxStdoutBytes ?? MIB,
      maxStderrBytes: options.maxStderrBytes ?? MIB,
      maxOutputBytes: options.maxOutputBytes ?? 4 * MIB,
      maxEnvConfigBytes: options.maxEnvConfigBytes ?? 64 * KIB,
      maxLiveProcesses: options.maxLiveProcesses ?? 1000,
      maxLiveProcessesPerKey: options.maxProcessesPerKey ?? 100,
      maxTimeoutMs: options.maxTimeoutMs ?? 300_000,
    },
    logger,
    outbound,
    registries: {
      urls: options.registries ?? [],
      npmRegistry: options.npmRegistry ?? 'https://registry.npmjs.org',
      maxBytes: options.maxDefinitionBytes ?? 64 * MIB,
      timeoutMs: options.downloadTimeoutMs ?? 30_000,
      ...(options.autoUpdateIntervalMs === undefined
        ? {}
        : { autoUpdateIntervalMs: options.autoUpdateIntervalMs }),
    },
    // Stored keys protect a non-loopback bind too; they are known once the database is open.
    checkKeys: (storedKeys) => assertSafeBind(host, apiKey, options.insecure === true, storedKeys),
  });
  const mcp = mcpRouteGroup({
    host: composed.host,
    version: SERVER_VERSION,
    maxBodyBytes: (options.maxCodeBytes ?? 100 * KIB) * 6 + 64 * KIB,
    maxCodeChars: options.maxCodeBytes ?? 100 * KIB,
    maxJsonDepth: options.maxJsonDepth ?? MAX_JSON_DEPTH,
    maxJsonElements: options.maxJsonElements ?? 50_000,
  });
  const ui = options.noUi ? undefined : uiRouteGroup();
  const app = createApp(composed.host, {
    routes: [mcp.group, ...(ui ? [ui] : [])],
    ...(apiKey === undefined ? {} : { apiKey }),
    keys: composed.keys,
    logger: logger.child({ component: 'http' }),
    maxBodyBytes: options.maxBodyBytes ?? 64 * MIB,
    maxJsonDepth: options.maxJsonDepth ?? MAX_JSON_DEPTH,
    maxJsonElements: options.maxJsonElements ?? 50_000,
    // The name the server was told to bind is the operator's own: accepted in `Host` like the list.
    allowedHosts: [...(options.allowedHosts ?? []), ...(isIP(host) === 0 ? [host] : [])],
    allowedOrigins: options.allowedOrigins ?? [],
    maxEventStreams: options.maxEventStreams ?? 256,
    maxEventBufferBytes: options.maxEventBufferBytes ?? 256 * MIB,
    maxDefinitionBytes: options.maxDefinitionBytes ?? 64 * MIB,
    downloadTimeoutMs: options.downloadTimeoutMs ?? 30_000,
    outbound,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.maxEventQueueBytes === undefined ? {} : { maxEventQueueBytes: options.maxEventQueueBytes }),
  });
  const requests = createRequestTracker(app.fetch);
  const server = await listen(requests.fetch, requestedPort, host).catch(async (error: unknown) => {
    await composed.closeHost({ graceMs: 0 });
    await composed.closeStore();
    throw error;
  });
  const bound = server.address() as AddressInfo;
  const port = bound.port;
  ownEndpoint = { address: bound.address, port };
  const url = `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
  logger.announce('listening', { url, dataDir, pid: process.pid, database: database.path });
  const graceMs = options.shutdownTimeoutMs ?? 10_000;
  let closing: Promise<void> | undefined;
  const close = async () => {
    const deadline = Date.now() + graceMs;
    requests.startDraining();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Requests in flight (an install mid-download, a client waiting on a process) finish with
    // the host and the database still there, within the grace.
    if (requests.pending() > 0) {
      logger.info('waiting for requests in flight', { count: requests.pending(), graceMs });
      await requests.drained(graceMs);
    }
    // Running processes get what is left of the grace, then are killed and recorded, which
    // answers the clients still waiting on them.
    await mcp.handler.close().catch(() => undefined);
    await composed.closeHost({ graceMs: Math.max(0, deadline - Date.now()) });
    // Give those answers a moment to flush, then cut whatever is left (SSE streams, slow clients).
    const flushed = await Promise.race([stopped.then(() => true), delay(FLUSH_MS).then(() => false)]);
    if (!flushed) server.closeAllConnections();
    await stopped;
    // A handler whose client was cut sees its request signal abort; let it end before the
    // database goes, so it fails cleanly instead of on a closed connection.
    if (!(await requests.drained(FLUSH_MS))) {
      logger.warn('closing the database with requests still running', { count: requests.pending() });
    }
    await composed.closeStore();
  };
  return {
    url,
    port,
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}

const KIB = 1024;
const MIB = 1024 * KIB;
/** Time answers get to reach their clients after the host closed, and cut handlers get to end. */
const FLUSH_MS = 1000;

/**
 * Idle keep-alive connections stay open this long: longer than the idle timeouts of common load
 * balancers (60 s), so the server is never the side that closes a connection a client is about to
 * reuse (Node's default of 5 s lets a request sent just then fail with ECONNRESET).
 */
const KEEP_ALIVE_MS = 65_000;

function listen(fetch: FetchHandler, port: number, hostname: string) {
  return new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const server = serve({ fetch, port, hostname }, () => resolve(server));
    const http = server as import('node:http').Server;
    http.keepAliveTimeout = KEEP_ALIVE_MS;
    http.headersTimeout = KEEP_ALIVE_MS + 1000;
    server.once('error', reject);
  }) as Promise<import('node:http').Server>;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
