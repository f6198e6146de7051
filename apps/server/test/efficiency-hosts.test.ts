import { POSTGRES_TESTS } from '@cyrnel/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_CODE, type Json, shopSpec, startUpstream, UPSTREAM_KEY, type Upstream } from './helpers';
import { useSharedHosts } from './shared-hosts';

const KEY = 'efficiency-hosts-admin';

describe.skipIf(!POSTGRES_TESTS.enabled)(
  'the efficiency meter of a service on hosts sharing PostgreSQL',
  () => {
    const hosts = useSharedHosts('cyrnel_efficiency', KEY);
    let upstream: Upstream;
    /** Calls from sandbox processes through the egress gateway (direct) or through the gate only. */
    const start = async (hostId: string, direct: boolean) =>
      (await hosts.start(hostId, { noDirectToolCalls: !direct })).api;

    beforeAll(async () => {
      upstream = await startUpstream();
    });
    afterAll(async () => {
      await upstream?.close();
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

      // A host's stats wait for the ends of the runs it ran itself (their `wait` answered from
      // memory, the row follows); another host's ended runs count once that host wrote them. A
      // read of each host's stats writes its own first, so the sums below cover all four runs.
      await Promise.all([a('GET', '/services/shop/stats'), b('GET', '/services/shop/stats')]);
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
