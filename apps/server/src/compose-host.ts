import mcp from '@cyrnel/adapter-mcp';
import openapi from '@cyrnel/adapter-openapi';
import { type CyrnelHost, createHost, createKeyRing, type KeyRing, type RegistryOptions } from '@cyrnel/core';
import typescriptIvm from '@cyrnel/env-typescript-ivm';
import type { OutboundPolicy } from '@cyrnel/sdk';
import type { Store } from '@cyrnel/store';
import { openPostgresStore } from '@cyrnel/store/postgres';
import { openSqliteStore } from '@cyrnel/store/sqlite';
import type { ServerLogger } from './create-logger';
import type { DatabaseTarget } from './database-url';
import { defaultHostId } from './server-config';
import { withConfigDefaults } from './with-config-defaults';

/** Options of {@link composeHost}. */
export interface ComposeHostOptions {
  readonly dataDir: string;
  /** The store to open. */
  readonly database: DatabaseTarget;
  readonly secretsKey: Buffer;
  readonly secretsPreviousKeys: readonly Buffer[];
  readonly limits: ProcessLimitOptions;
  readonly logger: ServerLogger;
  /** Called with the number of stored API keys before the host starts; throw to refuse the start. */
  readonly checkKeys?: (storedKeys: number) => void;
  /** Where tool calls may connect (handed to every module's `setup`), and downloads. */
  readonly outbound: OutboundPolicy;
  /** Registries, npm and auto-updates. */
  readonly registries?: RegistryOptions;
  /** Sandbox processes call portable adapters' tools themselves (default true; issue 21). */
  readonly directToolCalls?: boolean;
  /** This host among several on the database (issue 22; default: this machine and data directory). */
  readonly hostId?: string;
  /** Processes this host holds at once before new ones wait in the shared queue (default 32). */
  readonly hostSlots?: number;
}

/** The process limits of SPEC §3 the server sets from its flags. */
export interface ProcessLimitOptions {
  readonly maxCodeBytes: number;
  readonly maxStdoutBytes: number;
  readonly maxStderrBytes: number;
  readonly maxOutputBytes: number;
  readonly maxEnvConfigBytes: number;
  readonly maxLiveProcesses: number;
  readonly maxLiveProcessesPerKey: number;
  readonly maxTimeoutMs: number;
}

/** The core host on the chosen store, with the built-in modules, and how to close both. */
export interface ComposedHost {
  readonly host: CyrnelHost;
  /** The API keys stored in the database. */
  readonly keys: KeyRing;
  /** Close the host: running processes get `graceMs`, then are killed and recorded. */
  closeHost(options: { graceMs: number }): Promise<void>;
  /** Close the database; only once nothing uses the host any more. */
  closeStore(): Promise<void>;
}

/**
 * Wire the store, the built-in modules and the core host (the core never imports them itself).
 * The core enforces the limits; the sandbox gets the same caps as its config defaults so it
 * cuts output at the same point before sending it (the smaller of the two wins).
 */
export async function composeHost(options: ComposeHostOptions): Promise<ComposedHost> {
  const store = await openDatabase(options.database);
  const keys = createKeyRing({ storage: store.keys });
  let host: CyrnelHost;
  try {
    options.checkKeys?.(await keys.count());
    host = await createHost({
      storage: store,
      dataDir: options.dataDir,
      builtins: [
        openapi,
        mcp,
        withConfigDefaults(typescriptIvm, {
          stdoutCapBytes: options.limits.maxStdoutBytes,
          stderrCapBytes: options.limits.maxStderrBytes,
          outputCapBytes: options.limits.maxOutputBytes,
        }),
      ],
      secretsKey: options.secretsKey,
      previousSecretsKeys: [...options.secretsPreviousKeys],
      logger: options.logger.child({ component: 'core' }),
      limits: { ...options.limits },
      outbound: options.outbound,
      ...(options.directToolCalls === false ? { directToolCalls: false } : {}),
      // A SQLite file has one host (it is locked); a PostgreSQL database may have several.
      host: {
        id: options.hostId ?? defaultHostId(options.dataDir),
        catalogPollMs: options.database.kind === 'postgres' ? 1000 : 0,
        ...(options.hostSlots === undefined ? {} : { slots: options.hostSlots }),
      },
      ...(options.registries ? { registries: options.registries } : {}),
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    host,
    keys,
    closeHost: ({ graceMs }) => host.close({ graceMs }),
    closeStore: () => store.close(),
  };
}

/** Open the store `--database-url` chose: the one place that knows every kind of database. */
export async function openDatabase(target: DatabaseTarget): Promise<Store> {
  switch (target.kind) {
    case 'sqlite':
      return openSqliteStore({ filename: target.path });
    case 'postgres':
      return openPostgresStore({ url: target.url });
  }
}
