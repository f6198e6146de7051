import { POSTGRES_TESTS } from '@cyrnel/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from './helpers';
import { useSharedHosts } from './shared-hosts';
import {
  callerTrace,
  type OtlpReceiver,
  spanNamed,
  startOtlpReceiver,
  startTracedUpstream,
  type TracedUpstream,
} from './tracing-helpers';

const KEY = 'tracing-hosts-admin';
const CODE = `const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 5150 } });
cyrnel.output({ name: user.body.name });`;
/** Holds host A's only slot until it is killed. */
const BLOCKER = 'await new Promise((resolve) => setTimeout(resolve, 240_000));';

describe.skipIf(!POSTGRES_TESTS.enabled)('a traced run taken from the shared queue by another host', () => {
  const hosts = useSharedHosts('cyrnel_tracing', KEY);
  let receiver: OtlpReceiver;
  let upstream: TracedUpstream;
  // One run at a time: with it held, new work goes to the shared queue for the other host.
  const start = async (hostId: string) =>
    (await hosts.start(hostId, { hostSlots: 1, otel: receiver.url })).api;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    upstream = await startTracedUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
    await receiver?.close();
  });

  it('continues the trace of the request that queued it, on the host that claims it', async () => {
    const a = await start('trace-host-a');
    await start('trace-host-b');
    // A host that sees no other live host runs everything submitted to it: wait until host A has
    // seen host B at a heartbeat.
    await expect
      .poll(async () => /^cyrnel_peer_hosts 1$/m.test((await a('GET', '/metrics')).text), { timeout: 30_000 })
      .toBe(true);
    await upstream.install(a);
    const blocker = await a('POST', '/processes', { code: BLOCKER, timeoutMs: 270_000 });
    expect(blocker.status).toBe(201);
    const record = async (id: number, done: (body: Json) => boolean): Promise<Json> => {
      for (let tries = 0; ; tries++) {
        const got = await a('GET', `/processes/${id}`);
        if (done(got.body)) return got.body;
        if (tries > 600) throw new Error(`process ${id} never got there: ${got.text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await record(blocker.body.id, (body) => body.state === 'running' && body.hostId === 'trace-host-a');
    // Should host A still take one itself (a heartbeat it missed), that run is killed and sent again.
    let traced: { caller: ReturnType<typeof callerTrace>; id: number } | undefined;
    for (let attempt = 0; attempt < 60 && !traced; attempt++) {
      const caller = callerTrace();
      const created = await a('POST', '/processes', { code: CODE }, { traceparent: caller.traceparent });
      expect(created.status).toBe(201);
      const placed = await record(created.body.id, (body) => body.hostId !== null);
      if (placed.hostId === 'trace-host-b') traced = { caller, id: created.body.id };
      else await a('POST', `/processes/${created.body.id}/signals/kill`);
    }
    if (!traced) throw new Error('host A never left work to host B');
    const { caller, id } = traced;
    const ended = await record(id, (body) => body.exitState !== null);
    expect(ended).toMatchObject({ exitState: 'success', hostId: 'trace-host-b' });

    const found = await receiver.until((spans) => {
      const request = spanNamed(spans, caller.traceId, 'POST /processes');
      const run = spanNamed(spans, caller.traceId, 'cyrnel.process');
      const call = spanNamed(spans, caller.traceId, 'execute_tool shop.getUser');
      const egress = spans.find(
        (span) => span.traceId === caller.traceId && span.scope === '@cyrnel/adapter-openapi',
      );
      return request && run && call && egress ? { request, run, call, egress } : undefined;
    });
    // Host A answered the request; host B ran the process as its child, in the caller's trace.
    expect(found.request.parentSpanId).toBe(caller.spanId);
    expect(found.run.parentSpanId).toBe(found.request.spanId);
    expect(found.run.attributes).toMatchObject({
      'cyrnel.host.id': 'trace-host-b',
      'cyrnel.process.claimed': true,
      'cyrnel.process.id': id,
      'cyrnel.process.exit_state': 'success',
    });
    expect(found.call.parentSpanId).toBe(found.run.spanId);
    expect(found.egress.parentSpanId).toBe(found.call.spanId);
    const sent = upstream.received.find((item) => item.path === '/users/5150');
    expect(sent?.headers.traceparent).toBe(`00-${caller.traceId}-${found.egress.spanId}-01`);
    await a('POST', `/processes/${blocker.body.id}/signals/kill`);
  });
});
