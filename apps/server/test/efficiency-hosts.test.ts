import { randomBytes } from 'node:crypto';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '@cyrnel/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import {
  AGENT_CODE,
  apiClient,
  type Json,
  shopSpec,
  startSharedHost,
  startUpstream,
  type tempDir,
  UPSTREAM_KEY,
  type Upstream,
} from './helpers';

const KEY = 'efficiency-hosts-admin';

describe.skipIf(!POSTGRES_TESTS.enabled)(
  'the efficiency meter of a service on hosts sharing PostgreSQL',
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
      database = await freshPostgresDatabase('cyrnel_efficiency');
      upstream = await startUpstream();
    });
    afterAll(async () => {
      for (const server of servers) await server.close();
      for (const dir of dirs) await dir.remove();
      await upstream?.close();
      await database?.drop();
    });

    it('counts the runs of every host, at once, and every host answers the same sums', async () => {
      const a = await start('host-a', true);
      const b = await start('host-b', false);
      const installed = await a('POST', '/services', {
        id: 'shop',
        adapter: 'openapi',
        definition: JSON.stringify(shopSpec(upstream.url)),
        secrets: { shopKey: UPSTREAM_KEY },
        enabled: true,
      });
      expect(installed.status).toBe(201);

      // Runs on both hosts at the same time: each writes its own rows, nothing is counted per host.
      const run = (api: typeof a) => api('POST', '/processes', { code: AGENT_CODE, wait: true });
      const runs: Json[] = (await Promise.all([run(a), run(b), run(a), run(b)])).map(
        (response) => response.body,
      );
      for (const ran of runs) expect(ran).toMatchObject({ exitState: 'success', metrics: { toolCalls: 2 } });
      expect(new Set(runs.map((ran) => ran.hostId))).toEqual(new Set(['host-a', 'host-b']));

      const sum = (pick: (metrics: Json) => number) =>
        runs.reduce((total, ran) => total + pick(ran.metrics), 0);
      const fromA = (await a('GET', '/services/shop/stats')).body;
      expect(fromA).toMatchObject({
        runs: 4,
        toolCalls: 8,
        toolResultBytes: sum((metrics) => metrics.toolResultBytes),
        returnedBytes: sum((metrics) => metrics.returnedBytes),
      });
      expect(fromA.wallMs).toBeCloseTo(
        sum((metrics) => metrics.wallMs),
        6,
      );
      expect(fromA.cpuMs).toBeCloseTo(
        sum((metrics) => metrics.cpuMs),
        6,
      );
      expect((await b('GET', '/services/shop/stats')).body).toEqual(fromA);
    });
  },
);
