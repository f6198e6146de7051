import { POSTGRES_TESTS } from '@cyrnel/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type apiClient, type Json, shopSpec, startUpstream, UPSTREAM_KEY, type Upstream } from './helpers';
import { useSharedHosts } from './shared-hosts';

const KEY = 'enable-admin';
const ROUNDS = 40;

describe.skipIf(!POSTGRES_TESTS.enabled)(
  'a service enabled on one host is usable on the other at once',
  () => {
    const hosts = useSharedHosts('cyrnel_enable', KEY);
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
