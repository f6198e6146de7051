import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadSecretsKey } from '@cyrnel/core';
import { createApp } from '@cyrnel/http';
import { serve } from '@hono/node-server';
import { assertSafeBind } from './assert-safe-bind';
import { composeHost } from './compose-host';
import { createLogger, type ServerLogger } from './create-logger';
import type { ServerConfig } from './server-config';

/** Options of {@link startServer}: any {@link ServerConfig} field (defaults as the binary's), plus a logger. */
export interface StartServerOptions extends Partial<ServerConfig> {
  /** Data directory (required: tests and embedders must choose one). */
  dataDir: string;
  /** Logger; silent when omitted. */
  logger?: ServerLogger;
  /** Interval of SSE heartbeats. Default 15000. */
  heartbeatMs?: number;
}

/** A running server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:9371`. */
  readonly url: string;
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** Stop accepting connections, give processes the shutdown grace, record the rest, close the database. */
  close(): Promise<void>;
}

/**
 * Start cyrnel: the SQLite store in the data directory, the core host with the built-in
 * `openapi` and `typescript-ivm` modules, and the HTTP API.
 *
 * @example
 * const server = await startServer({ dataDir: '/tmp/cyrnel', port: 0 });
 * await fetch(`${server.url}/health`);
 * await server.close();
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const logger = options.logger ?? createLogger({ level: 'silent' });
  const host = options.host ?? '127.0.0.1';
  const apiKey = options.apiKey === '' ? undefined : options.apiKey;
  assertSafeBind(host, apiKey, options.insecure === true);
  const dataDir = options.dataDir;
  await mkdir(dataDir, { recursive: true });
  const secrets = loadSecretsKey({
    dataDir,
    env: {
      CYRNEL_SECRETS_KEY: options.secretsKey,
      CYRNEL_SECRETS_PREVIOUS_KEYS: (options.secretsPreviousKeys ?? []).join(','),
    },
    logger,
  });
  const composed = await composeHost({
    dataDir,
    databasePath: options.databasePath ?? join(dataDir, 'data.db'),
    secretsKey: secrets.key,
    secretsPreviousKeys: secrets.previousKeys,
    maxLiveProcesses: options.maxLiveProcesses ?? 1000,
    logger,
  });
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const app = createApp(composed.host, {
    ...(apiKey === undefined ? {} : { apiKey }),
    logger: logger.child({ component: 'http' }),
    maxBodyBytes,
    maxDefinitionBytes: maxBodyBytes,
    allowPrivateUrls: options.allowPrivateUrls ?? false,
    allowCidrs: options.urlAllowCidrs ?? [],
    denyCidrs: options.urlDenyCidrs ?? [],
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  const server = await listen(app.fetch, options.port ?? 9371, host).catch(async (error: unknown) => {
    await composed.close({ graceMs: 0 });
    throw error;
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
  logger.info('listening', {
    url,
    dataDir,
    pid: process.pid,
    database: options.databasePath ?? join(dataDir, 'data.db'),
  });
  let closing: Promise<void> | undefined;
  const close = async () => {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await composed.close({ graceMs: options.shutdownTimeoutMs ?? 10_000 });
    // Requests waiting on processes were answered when the host recorded them; give the
    // answers a moment to flush, then cut whatever is left (SSE streams, slow clients).
    const flushed = await Promise.race([stopped.then(() => true), delay(1000).then(() => false)]);
    if (!flushed) server.closeAllConnections();
    await stopped;
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

type FetchHandler = Parameters<typeof serve>[0]['fetch'];

function listen(fetch: FetchHandler, port: number, hostname: string) {
  return new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const server = serve({ fetch, port, hostname }, () => resolve(server));
    server.once('error', reject);
  }) as Promise<import('node:http').Server>;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
