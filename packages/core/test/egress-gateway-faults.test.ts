import { describe, expect, it } from 'vitest';
import { type Answer, client, useEgressWorld } from './support/egress-world';

describe('the egress gateway’s faults: revocations, changes, refusals, oversized answers, crashes', () => {
  const world = useEgressWorld();
  const { hits, audits } = world;

  it('aborts a revoked execution’s call in flight and records its end', async () => {
    const egress = world.start();
    const channel = egress.open();
    await channel.grant(7);
    const own = client(channel.endpoints[0] as string, channel.token);
    hits.length = 0;
    const pending = own.call(7, 'hold');
    while (!hits.some((hit) => hit.path === '/hold')) await new Promise((resolve) => setTimeout(resolve, 5));
    channel.revoke(7);
    const answer = await pending;
    expect(answer.header.error?.reason).toBe('process_killed');
    await egress.endsRead();
    const end = audits.filter((audit) => audit.eid === 7 && audit.event.kind === 'end').at(-1);
    expect(end?.event).toMatchObject({ ok: false, errorReason: 'process_killed' });
    expect((await own.call(7, 'echo')).header.error?.reason).toBe('unauthorized');
    own.close();
  });

  it('uses a new secret, and honours a disable, from the first call after the change', async () => {
    const egress = world.start();
    const channel = egress.open();
    await channel.grant(3);
    const own = client(channel.endpoints[0] as string, channel.token);
    hits.length = 0;
    // Both workers prepare the tool (calls alternate between sockets only by choice: use both).
    const second = client(channel.endpoints[1] as string, channel.token);
    await own.call(3, 'echo');
    await second.call(3, 'echo');
    world.secret = 'second-secret';
    await world.change();
    await own.call(3, 'echo');
    await second.call(3, 'echo');
    expect(hits.map((hit) => hit.key)).toEqual([
      'first-secret',
      'first-secret',
      'second-secret',
      'second-secret',
    ]);
    world.enabled = false;
    await world.change();
    expect((await own.call(3, 'echo')).header).toMatchObject({ host: true, unprepared: true });
    expect((await second.call(3, 'echo')).header).toMatchObject({ host: true, unprepared: true });
    expect(hits).toHaveLength(4);
    world.enabled = true;
    world.secret = 'first-secret';
    await world.change();
    // What was not prepared before the change is prepared again after it.
    expect((await own.call(3, 'echo')).header).toMatchObject({ ok: true });
    expect(hits).toHaveLength(5);
    own.close();
    second.close();
  });

  it('makes a call refused with 401 once more after the refresh, prepared anew even when another change arrives meanwhile', async () => {
    const egress = world.start();
    const refreshes: string[] = [];
    egress.reauthorize(async (instanceId) => {
      refreshes.push(instanceId);
      world.secret = 'refreshed-secret';
      await world.change();
      // The preparation of the call made again meets a change of its own (another host's write).
      world.changeOnPrepare = true;
      return true;
    });
    const channel = egress.open();
    await channel.grant(41);
    const own = client(channel.endpoints[0] as string, channel.token);
    hits.length = 0;
    const made = await own.call(41, 'guarded');
    expect(made.header.ok).toBe(true);
    expect(JSON.parse(made.body)).toEqual({ status: 200, body: { path: '/guarded' } });
    expect(hits.map((hit) => hit.key)).toEqual(['first-secret', 'refreshed-secret']);
    expect(refreshes).toEqual(['svc']);
    expect(world.changeOnPrepare).toBe(false);
    own.close();
  });

  it('fails only the oversized answer (bytes, depth, elements) with upstream_answer_too_large', async () => {
    const egress = world.start({ budget: { maxBytes: 100_000, maxElements: 10_000 } });
    const channel = egress.open();
    await channel.grant(4);
    const own = client(channel.endpoints[0] as string, channel.token);
    for (const tool of ['big', 'deep', 'wide']) {
      const answer = await own.call(4, tool);
      expect(answer.header.error?.reason, tool).toBe('upstream_answer_too_large');
    }
    const small = await own.call(4, 'echo');
    expect(JSON.parse(small.body)).toEqual({ status: 200, body: { path: '/echo' } });
    await egress.endsRead();
    const ends = audits.filter((audit) => audit.eid === 4 && audit.event.kind === 'end');
    expect(ends.map((audit) => audit.event.kind === 'end' && audit.event.errorReason)).toEqual([
      'upstream_answer_too_large',
      'upstream_answer_too_large',
      'upstream_answer_too_large',
      null,
    ]);
    // The host's path is bounded the same way, in the worker.
    await expect(egress.invoke('svc', 'big', {})).rejects.toMatchObject({
      reason: 'upstream_answer_too_large',
    });
    const echoed = await egress.invoke('svc', 'echo', {});
    expect(JSON.parse(echoed?.json as string)).toEqual({ status: 200, body: { path: '/echo' } });
    // The upstream's status travels beside the text, for the metrics (on both paths).
    expect(echoed?.status).toBe(200);
    expect(ends.map((audit) => audit.event.kind === 'end' && audit.event.status)).toEqual([
      null,
      null,
      null,
      200,
    ]);
    expect(await egress.invoke('elsewhere', 'echo', {})).toBeUndefined();
    own.close();
  });

  it('loses only the calls of a worker that runs out of memory, records them crashed, and replaces it', async () => {
    const egress = world.start({ workerMemoryMb: 96 });
    const channel = egress.open();
    await channel.grant(5);
    const own = client(channel.endpoints[0] as string, channel.token);
    const answer = await own.call(5, 'bomb');
    // The connection went down with the worker, and the call with it.
    const end = await (async () => {
      for (;;) {
        const found = audits.filter((audit) => audit.eid === 5 && audit.event.kind === 'end').at(-1);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    expect(end.event).toMatchObject({ ok: false, errorReason: 'upstream_crashed' });
    expect(answer.header.error?.reason).toBe('connection_lost');
    own.close();
    // The replacement serves the same channel's grants on the same socket.
    let again: Answer | undefined;
    for (let attempt = 0; attempt < 100 && !again?.header.ok; attempt++) {
      const retry = client(channel.endpoints[0] as string, channel.token);
      again = await Promise.race([
        retry.call(5, 'echo'),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200)),
      ]);
      retry.close();
      // Until the replacement listens, connecting fails at once.
      if (!again?.header.ok) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(again?.header.ok).toBe(true);
  });
});
