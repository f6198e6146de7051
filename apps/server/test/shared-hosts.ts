import { randomBytes } from 'node:crypto';
import { type FreshDatabase, freshPostgresDatabase } from '@cyrnel/store/testing';
import { afterAll, beforeAll } from 'vitest';
import type { RunningServer, StartServerOptions } from '../src/index';
import { apiClient, startTestServer, tempDir } from './helpers';

/** What {@link useSharedHosts} gives a suite. */
export interface SharedHosts {
  /** The fresh database's URL (after `beforeAll`). */
  databaseUrl(): string;
  /**
   * Start host `hostId` on the shared database, on a fresh data directory and a free port, with
   * the suite's options and then `options`; closed (and its directory removed) after the suite.
   */
  start(
    hostId: string,
    options?: Partial<StartServerOptions>,
  ): Promise<{ server: RunningServer; api: ReturnType<typeof apiClient> }>;
  /** Close every host started so far (a test that wants only its own hosts on the database). */
  closeAll(): Promise<void>;
}

/**
 * Several hosts of one fresh PostgreSQL database for the suite it is called in (inside a
 * `describe.skipIf(!POSTGRES_TESTS.enabled)`): the database is made before the suite and dropped
 * after it, every host started is closed. The hosts share `apiKey` and one secrets key (they open
 * each other's secrets); loopback upstreams are allowed.
 *
 * @example
 * const hosts = useSharedHosts('cyrnel_enable', 'enable-admin');
 * it('…', async () => {
 *   const { api } = await hosts.start('host-a', { hostSlots: 1 });
 * });
 */
export function useSharedHosts(
  databaseName: string,
  apiKey: string,
  suiteOptions: Partial<StartServerOptions> = {},
): SharedHosts {
  let database: FreshDatabase | undefined;
  const dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
  const servers: RunningServer[] = [];
  const secretsKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    database = await freshPostgresDatabase(databaseName);
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const dir of dirs) await dir.remove();
    await database?.drop();
  });

  const databaseUrl = () => {
    if (!database) throw new Error('the shared database is made before the suite runs');
    return database.url;
  };
  return {
    databaseUrl,
    async start(hostId, options = {}) {
      const dir = await tempDir();
      dirs.push(dir);
      const server = await startTestServer({
        dataDir: dir.path,
        port: 0,
        apiKey,
        secretsKey,
        hostId,
        urlAllowCidrs: ['127.0.0.1/32'],
        database: { kind: 'postgres', url: databaseUrl() },
        ...suiteOptions,
        ...options,
      });
      servers.push(server);
      return { server, api: apiClient(server.url, apiKey) };
    },
    async closeAll() {
      for (const server of servers.splice(0)) await server.close();
    },
  };
}
