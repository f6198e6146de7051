import { hkdfSync } from 'node:crypto';
import mcp from '@cyrnel/adapter-mcp';
import openapi from '@cyrnel/adapter-openapi';
import {
  type CyrnelHost,
  createHost,
  createKeyRing,
  createOutboundPolicy,
  type HostMetrics,
  type KeyRing,
  loadSecretsKey,
  type OwnEndpoint,
  type ProcessLimits,
  parseDefaultPolicy,
  type Redactor,
  type RegistryOptions,
  type TracingOptions,
} from '@cyrnel/core';
import typescriptIvm from '@cyrnel/env-typescript-ivm';
import type { OutboundPolicy } from '@cyrnel/sdk';
import type { Store } from '@cyrnel/store';
import type { ServerLogger } from './create-logger';
import type { DatabaseTarget } from './database-url';
import { type StoreObserver, timedStore } from './metrics-store';
import { prepareDataDir } from './prepare-data-dir';
import type { ServerConfig } from './server-flags';
import { unknownToolsOf } from './unknown-tools';
import { withConfigDefaults } from './with-config-defaults';

/** Options of {@link composeHost}. */
export interface ComposeHostOptions {
  /**
   * The resolved settings (`resolveServerConfig`): the data directory, the store, the secrets
   * keys, the process limits, this host's id and slots, the registries and the address guard.
   */
  readonly config: ServerConfig;
  readonly logger: ServerLogger;
  /** The host's redactor (`createRedactor`): it learns the secrets key and every decrypted secret. */
  readonly redactor?: Redactor;
  /**
   * Cyrnel's own listen address and port, which tool calls and downloads may never reach; read at
   * every check, since a server on port 0 learns its port after listen.
   */
  readonly ownEndpoint?: () => OwnEndpoint | undefined;
  /** Called with the number of stored API keys before the host starts; throw to refuse the start. */
  readonly checkKeys?: (storedKeys: number) => void;
  /** The URL clients reach this server at (`--public-url`, else the listening URL, known after listen). */
  readonly publicUrl?: () => string | undefined;
  /** The URL of the server's OAuth client ID metadata document, when it has one. */
  readonly oauthClientMetadataUrl?: () => string | undefined;
  /** Where runs, tool calls and store calls are reported (the server's Prometheus metrics). */
  readonly metrics?: { readonly host: HostMetrics; readonly store: StoreObserver };
  /** Traces of runs and tool calls (`startTracing`); absent: off. */
  readonly tracing?: TracingOptions;
}

/** The core host on the chosen store, with the built-in modules, and how to close both. */
export interface ComposedHost {
  readonly host: CyrnelHost;
  /** The API keys stored in the database. */
  readonly keys: KeyRing;
  /** Where tool calls and definition downloads may connect (the HTTP layer's downloads too). */
  readonly outbound: OutboundPolicy;
  /**
   * The key `/mcp` signs the state of its approval rounds with, derived from the secrets key: a
   * client's retry may reach another host of the same database, which must accept it.
   */
  readonly mcpStateKey: Buffer;
  /** Close the host: running processes get `graceMs`, then are killed and recorded. */
  closeHost(options: { graceMs: number }): Promise<void>;
  /** Close the database; only once nothing uses the host any more. */
  closeStore(): Promise<void>;
}

/**
 * The key `/mcp` signs its approval rounds' state with: derived (HKDF-SHA-256) from the secrets
 * key, so every host of one database derives the same one and none is stored.
 *
 * @example
 * ```ts
 * mcpStateKeyOf(secretsKey).length; // 32
 * ```
 */
export function mcpStateKeyOf(secretsKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'cyrnel mcp request state', 32));
}

/** The core's process limits, as the server's flags set them. */
function processLimitsOf(config: ServerConfig): Partial<ProcessLimits> {
  return {
    maxCodeBytes: config.maxCodeBytes,
    maxStdoutBytes: config.maxStdoutBytes,
    maxStderrBytes: config.maxStderrBytes,
    maxOutputBytes: config.maxOutputBytes,
    maxEnvConfigBytes: config.maxEnvConfigBytes,
    maxLiveProcesses: config.maxLiveProcesses,
    maxLiveProcessesPerKey: config.maxProcessesPerKey,
    maxTimeoutMs: config.maxTimeoutMs,
    maxStoredBytesPerKey: config.maxStoredBytesPerKey,
    retentionMs: config.processRetention,
    retentionPerKey: config.processRetentionCount,
  };
}

/** Registries, npm and auto-updates, as the server's flags set them. */
function registriesOf(config: ServerConfig): RegistryOptions {
  return {
    urls: config.registries,
    npmRegistry: config.npmRegistry,
    maxBytes: config.maxDefinitionBytes,
    timeoutMs: config.downloadTimeoutMs,
    ...(config.autoUpdateIntervalMs === undefined
      ? {}
      : { autoUpdateIntervalMs: config.autoUpdateIntervalMs }),
  };
}

/**
 * Wire the data directory, the secrets key, the store, the built-in modules and the core host
 * (the core never imports them itself): what the server and the embedded MCP bridge both run.
 * The core enforces the limits; the sandbox gets the same caps as its config defaults so it
 * cuts output at the same point before sending it (the smaller of the two wins).
 */
export async function composeHost(options: ComposeHostOptions): Promise<ComposedHost> {
  const { config, logger } = options;
  await prepareDataDir(config.dataDir, logger);
  const secrets = loadSecretsKey({
    dataDir: config.dataDir,
    env: {
      CYRNEL_SECRETS_KEY: config.secretsKey,
      CYRNEL_SECRETS_PREVIOUS_KEYS: config.secretsPreviousKeys.join(','),
    },
    logger,
  });
  // Tool calls and definition downloads share one policy: the guard's switches, and never this
  // server itself.
  const outbound = createOutboundPolicy({
    allowPrivateUrls: config.allowPrivateUrls,
    allowCidrs: config.urlAllowCidrs,
    denyCidrs: config.urlDenyCidrs,
    ...(options.ownEndpoint ? { ownEndpoint: options.ownEndpoint } : {}),
  });
  // The key as loaded (a generated key file's too) is a secret like the others.
  options.redactor?.remember('server:secrets-key', [secrets.key.toString('base64')]);
  const opened = await openDatabase(config.database);
  const store = options.metrics ? timedStore(opened, options.metrics.store) : opened;
  // A key's scope or policy may only name services and tools the catalog has (400 otherwise).
  const keys = createKeyRing({ storage: store.keys, unknownTools: unknownToolsOf(store.catalog) });
  let host: CyrnelHost;
  try {
    options.checkKeys?.(await keys.count());
    host = await createHost({
      // Every port of the store: catalog, processes, keys (the policies read each key's scope and
      // policy), approvals (shared by the hosts of one PostgreSQL database) and signals.
      storage: store,
      dataDir: config.dataDir,
      builtins: [
        openapi,
        mcp,
        withConfigDefaults(typescriptIvm, {
          stdoutCapBytes: config.maxStdoutBytes,
          stderrCapBytes: config.maxStderrBytes,
          outputCapBytes: config.maxOutputBytes,
          ...(config.warmSandboxes === undefined ? {} : { warmSandboxes: config.warmSandboxes }),
        }),
      ],
      secretsKey: secrets.key,
      previousSecretsKeys: secrets.previousKeys,
      logger: logger.child({ component: 'core' }),
      ...(options.redactor ? { redactor: options.redactor } : {}),
      limits: processLimitsOf(config),
      // Checked when read from a flag; an embedder's text is checked here, naming the flag.
      policies: {
        default: parseDefaultPolicy(config.defaultPolicy),
        approvalTimeoutMs: config.approvalTimeoutMs,
      },
      outbound,
      // Connections' OAuth authorization code flow comes back to this server's public URL.
      oauthRedirectUri: () => {
        const url = options.publicUrl?.();
        return url ? `${url.replace(/\/+$/, '')}/oauth/callback` : undefined;
      },
      ...(options.oauthClientMetadataUrl ? { oauthClientMetadataUrl: options.oauthClientMetadataUrl } : {}),
      ...(options.tracing ? { tracing: options.tracing } : {}),
      // Sandbox processes send portable adapters' calls straight to the egress gateway unless the
      // operator sends every call through the gate first; the gateway makes them either way.
      ...(config.noDirectToolCalls ? { directToolCalls: false } : {}),
      egress: {
        workers: config.egressWorkers,
        answerBytes: config.egressAnswerBytes,
        // A SQLite file is this host's alone: its workers journal a run's later calls of an
        // allowed tool beside it instead of waiting for each start's write (a shared PostgreSQL
        // database needs each start stored there, where another host recovers the run).
        ...(config.database.kind === 'sqlite' && config.database.path !== ':memory:'
          ? { callJournal: `${config.database.path}.call-journal` }
          : {}),
      },
      // A SQLite file has one host (it is locked); a PostgreSQL database may have several.
      host: {
        id: config.hostId,
        catalogPollMs: config.database.kind === 'postgres' ? 1000 : 0,
        slots: config.hostSlots,
      },
      registries: registriesOf(config),
      ...(options.metrics ? { metrics: options.metrics.host } : {}),
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    host,
    keys,
    outbound,
    mcpStateKey: mcpStateKeyOf(secrets.key),
    closeHost: ({ graceMs }) => host.close({ graceMs }),
    closeStore: () => store.close(),
  };
}

/**
 * Open the store `--database-url` chose: the one place that knows every kind of database. Only the
 * chosen kind's driver is loaded (`pg` is never loaded by a SQLite server, nor SQLite's by a
 * PostgreSQL one).
 */
export async function openDatabase(target: DatabaseTarget): Promise<Store> {
  switch (target.kind) {
    case 'sqlite':
      return (await import('@cyrnel/store/sqlite')).openSqliteStore({ filename: target.path });
    case 'postgres':
      return (await import('@cyrnel/store/postgres')).openPostgresStore({ url: target.url });
  }
}
