import { randomBytes } from 'node:crypto';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '@cyrnel/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import {
  apiClient,
  type Json,
  shopSpec,
  startSharedHost,
  startUpstream,
  type tempDir,
  UPSTREAM_KEY,
  type Upstream,
} from './helpers';

const KEY = 'enable-admin';
const ROUNDS = 40;

describe.skipIf(!POSTGRES_TESTS.enabled)(
  'a service enabled on one host is usable on the other at once',
  () => {
    let database: FreshDatabase;
    let upstream: Upstream;
    const dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
    const servers: RunningServer[] = [];
    const secretsKey = randomBytes(32).toString('base64');

    const start = async (hostId: string, direct: boolean) => {
      const server = await startSharedHost({
        databaseUrl: database.url,
        secretsKey,
        apiKey: KEY,
        hostId,
        direct,
        dirs,
      });
      servers.push(server);
      return apiClient(server.url, KEY);
    };

    beforeAll(async () => {
      database = await freshPostgresDatabase('cyrnel_enable');
      upstream = await startUpstream();
    });
    afterAll(async () => {
      for (const server of servers) await server.close();
      for (const dir of dirs) await dir.remove();
      await upstream?.close();
      await database?.drop();
    });

    /** Install `count` services disabled on `a`, then per round enable one on `a` and run it on `b` at once. */
    const rounds = async (
      a: ReturnType<typeof apiClient>,
      b: ReturnType<typeof apiClient>,
      prefix: string,
    ) => {
      for (let i = 0; i < ROUNDS; i++) {
        const installed = await a('POST', '/services', {
          id: `${prefix}${i}`,
          adapter: 'openapi',
          definition: JSON.stringify(shopSpec(upstream.url)),
          secrets: { shopKey: UPSTREAM_KEY },
          enabled: false,
        });
        expect(installed.status).toBe(201);
      }
      const failures: Json[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        expect((await a('POST', `/services/${prefix}${i}/enabled`, { enabled: true })).status).toBe(200);
        const run = await b('POST', '/processes', {
          code: `const u = await cyrnel.services.${prefix}${i}.tools.getUser.invoke({ path: { id: 7 } }); cyrnel.output({ status: u.status });`,
          wait: true,
        });
        if (run.body.exitState !== 'success' || run.body.output?.status !== 200)
          failures.push({ round: i, error: run.body.error, errorReason: run.body.errorReason });
      }
      return failures;
    };

    it(`runs on host B right after each of ${ROUNDS} enables on host A, through the gate`, async () => {
      const a = await start('gate-a', false);
      const b = await start('gate-b', false);
      expect(await rounds(a, b, 'gated')).toEqual([]);
    });

    it(`does the same with direct tool calls from the sandbox`, async () => {
      const a = await start('direct-a', true);
      const b = await start('direct-b', true);
      expect(await rounds(a, b, 'direct')).toEqual([]);
    });
  },
);
