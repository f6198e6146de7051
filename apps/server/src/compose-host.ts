import openapi from '@cyrnel/adapter-openapi';
import { type CyrnelHost, createHost } from '@cyrnel/core';
import typescriptIvm from '@cyrnel/env-typescript-ivm';
import { openStore } from '@cyrnel/store';
import type { ServerLogger } from './create-logger';

/** Options of {@link composeHost}. */
export interface ComposeHostOptions {
  readonly dataDir: string;
  readonly databasePath: string;
  readonly secretsKey: Buffer;
  readonly secretsPreviousKeys: readonly Buffer[];
  readonly maxLiveProcesses: number;
  readonly logger: ServerLogger;
}

/** The core host on the SQLite store, with the built-in modules, and how to close both. */
export interface ComposedHost {
  readonly host: CyrnelHost;
  /** Close the host (processes get `graceMs`), then the database. */
  close(options: { graceMs: number }): Promise<void>;
}

/** Wire the store, the built-in modules and the core host (the core never imports them itself). */
export async function composeHost(options: ComposeHostOptions): Promise<ComposedHost> {
  const store = await openStore({ filename: options.databasePath });
  let host: CyrnelHost;
  try {
    host = await createHost({
      storage: store,
      dataDir: options.dataDir,
      builtins: [openapi, typescriptIvm],
      secretsKey: options.secretsKey,
      previousSecretsKeys: [...options.secretsPreviousKeys],
      logger: options.logger.child({ component: 'core' }),
      limits: { maxLiveProcesses: options.maxLiveProcesses },
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    host,
    close: async ({ graceMs }) => {
      try {
        await host.close({ graceMs });
      } finally {
        await store.close();
      }
    },
  };
}
