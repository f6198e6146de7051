import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { readCallJournal } from '../src/gateway/call-journal';
import type { RelayedSpan } from '../src/telemetry/relayed-span';
import { client, listening, useEgressWorld } from './support/egress-world';

// The egress gateway's way of a call: grants, audits, kept decisions, its workers' life and spans.
// Its faults (revocations, changes, refusals, oversized answers, crashes) are in
// egress-gateway-faults.test.ts.
describe('the egress gateway (real worker threads, real sockets, real HTTP)', () => {
  const world = useEgressWorld();
  const { hits, log, audits } = world;

  it('serves granted executions only, audits each call before it leaves, and keeps its sockets private', async () => {
    const egress = world.start();
    const a = egress.open();
    const b = egress.open();
    expect(a.token).not.toBe(b.token);
    const socketDir = dirname(a.endpoints[0] as string);
    expect(statSync(socketDir).mode & 0o777).toBe(0o700);
    await a.grant(1);
    const own = client(a.endpoints[0] as string, a.token);
    const other = client(a.endpoints[1] as string, b.token);
    const forger = client(a.endpoints[0] as string, 'guessed-token');
    hits.length = 0;
    log.length = 0;

    const made = await own.call(1, 'echo', { n: 1 });
    expect(made.header.ok).toBe(true);
    expect(JSON.parse(made.body)).toEqual({ status: 200, body: { path: '/echo' } });
    expect(log).toEqual(['start echo', 'hit /echo']);
    // Another execution on the granted token, the granted execution on another token, a guess.
    for (const refused of [
      await own.call(2, 'echo'),
      await other.call(1, 'echo'),
      await forger.call(1, 'echo'),
    ])
      expect(refused.header.error?.reason).toBe('unauthorized');
    expect(hits).toHaveLength(1);
    // A token no channel holds ends its connection with the refusal.
    expect((await forger.call(1, 'echo')).header.error?.reason).toBe('connection_lost');
    // Workers learn a grant on its first call: one granted and revoked without a call is refused,
    // and so is a call of the token's after its channel closed.
    await a.grant(3);
    a.revoke(3);
    expect((await own.call(3, 'echo')).header.error?.reason).toBe('unauthorized');
    expect(hits).toHaveLength(1);
    // Invalid parameters and tools it does not prepare go to the host's gate; only the latter are
    // told it does not make them until the next change (the parameters are the call's own).
    const invalid = await own.call(1, 'echo', { n: 'one' });
    expect(invalid.header).toEqual({ id: invalid.header.id, host: true });
    for (let i = 0; i < 2; i++) {
      const unprepared = await own.call(1, 'echo', {}, 'elsewhere');
      expect(unprepared.header).toEqual({ id: unprepared.header.id, host: true, unprepared: true });
    }
    // Ends are not acknowledged: the host reads them all before it settles a run.
    await egress.endsRead();
    const ends = audits.filter((audit) => audit.event.kind === 'end' && audit.eid === 1);
    expect(ends.at(-1)?.event).toMatchObject({ kind: 'end', ok: true, errorReason: null });
    // A start the host refuses (the run is not running) never leaves.
    await a.grant(1001);
    const stale = await own.call(1001, 'echo');
    expect(stale.header.error?.reason).toBe('process_not_running');
    expect(hits).toHaveLength(1);

    for (const socket of [own, other, forger]) socket.close();
    await egress.close();
    expect(existsSync(socketDir)).toBe(false);
  });

  it('makes a kept decision’s later calls without asking, journaled first; a change or another execution asks again', async () => {
    const journalDir = mkdtempSync(join(tmpdir(), 'cyrnel-egress-journal-'));
    const egress = world.start({ journalDir });
    expect(egress.journals).toBe(true);
    const starts: string[] = [];
    egress.audit((eid, event) => {
      audits.push({ eid, event });
      if (event.kind !== 'start') return true;
      starts.push(`${event.kept === undefined ? 'asked' : 'kept'} ${eid} ${event.toolId}`);
      return event.kept === undefined ? { ok: true, keep: true } : true;
    });
    const channel = egress.open();
    await channel.grant(7);
    await channel.grant(8);
    const own = client(channel.endpoints[0] as string, channel.token);
    hits.length = 0;
    for (let n = 0; n < 3; n++) expect((await own.call(7, 'echo', { n })).header.ok).toBe(true);
    // The barrier a run's end passes: every kept start and end queued in the worker is read.
    await egress.endsRead();
    expect(starts).toEqual(['asked 7 echo', 'kept 7 echo', 'kept 7 echo']);
    expect(hits).toHaveLength(3);
    const ends = audits.filter((audit) => audit.eid === 7 && audit.event.kind === 'end');
    expect(ends.map((audit) => audit.event)).toMatchObject(Array(3).fill({ ok: true }));
    // Each kept start was written to its worker's journal (one file per worker started) first.
    const files = readdirSync(journalDir).sort();
    expect(files).toEqual([
      expect.stringMatching(/^w0-\d+\.jsonl$/),
      expect.stringMatching(/^w1-\d+\.jsonl$/),
    ]);
    const lines = files.flatMap((file) => readCallJournal(join(journalDir, file)));
    expect(lines.map((line) => [line.q, line.p, line.s, line.t])).toEqual([
      [1, 7, 'svc', 'echo'],
      [2, 7, 'svc', 'echo'],
    ]);
    // Another execution, and the same one after a catalog change, are asked again.
    starts.length = 0;
    await own.call(8, 'echo');
    await world.change();
    await own.call(7, 'echo');
    await own.call(7, 'echo');
    await egress.endsRead();
    expect(starts).toEqual(['asked 8 echo', 'asked 7 echo', 'kept 7 echo']);
    own.close();
    await egress.close();
    // A worker that stops leaves no journal: what it journaled was read.
    expect(readdirSync(journalDir)).toEqual([]);
    rmSync(journalDir, { recursive: true, force: true });
  });

  it('starts its workers with the first grant, and stops them after idling until the next grant', async () => {
    const egress = world.start({ idleTimeoutMs: 200 });
    const channel = egress.open();
    const path = channel.endpoints[0] as string;
    // A channel is not work: no worker has started, so none listens.
    expect(existsSync(path)).toBe(false);
    await channel.grant(11);
    const own = client(path, channel.token);
    expect((await own.call(11, 'echo')).header.ok).toBe(true);
    own.close();
    channel.revoke(11);
    // Nothing granted any more: the workers exit; a connection finds nobody listening.
    const deadline = Date.now() + 60_000;
    while (await listening(path)) {
      if (Date.now() > deadline) throw new Error('the idle worker did not exit within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The next grant starts them again; they ask about each execution on its first call.
    await channel.grant(12);
    const again = client(path, channel.token);
    expect((await again.call(12, 'echo')).header.ok).toBe(true);
    expect((await again.call(11, 'echo')).header.error?.reason).toBe('unauthorized');
    again.close();
  });

  it('sends its workers’ spans over the exporter’s ports, and offers a new one to a worker whose port closed', async () => {
    /** The exporter's ends of the ports handed out, and the batches that came over them. */
    const ports: MessagePort[] = [];
    const overPorts: unknown[] = [];
    const relayed: RelayedSpan[] = [];
    const egress = world.start({
      tracing: {
        exportRelayed: (spans) => relayed.push(...spans),
        exportPort: () => {
          const { port1, port2 } = new MessageChannel();
          port1.on('message', (batch: unknown[]) => overPorts.push(...batch));
          ports.push(port1);
          return port2;
        },
      },
    });
    const until = async (done: () => boolean, what: string) => {
      const deadline = Date.now() + 30_000;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`${what}: not within 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const channel = egress.open();
    await channel.grant(21);
    const own = client(channel.endpoints[0] as string, channel.token);
    expect((await own.call(21, 'traced')).header.ok).toBe(true);
    await until(() => overPorts.length === 1, 'the span over the port');
    expect(relayed).toEqual([]);
    // The exporter thread was replaced: the ports it held close.
    const first = ports.length;
    for (const port of ports) port.close();
    expect((await own.call(21, 'traced')).header.ok).toBe(true);
    await until(() => relayed.length === 1, 'the span through the main thread');
    expect(relayed[0]?.name).toBe('probe traced');
    // Offered a new port with them: the next span goes over it.
    await until(() => ports.length === first + 1, 'a new port');
    expect((await own.call(21, 'traced')).header.ok).toBe(true);
    await until(() => overPorts.length === 2, 'the span over the new port');
    expect(relayed).toHaveLength(1);
    own.close();
  });

  it('answers a call without waiting for its end’s audit; endsRead hands over every end sent before it', async () => {
    const egress = world.start();
    // An audit that never finishes with an end: the sandbox's answer does not wait for it.
    egress.audit((eid, event) => {
      audits.push({ eid, event });
      return event.kind === 'start' ? true : new Promise<boolean>(() => {});
    });
    const channel = egress.open();
    await channel.grant(31);
    const own = client(channel.endpoints[0] as string, channel.token);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => own.call(31, 'echo', { n })));
    for (const answer of answers) expect(answer.header.ok).toBe(true);
    await egress.endsRead();
    const ends = audits.filter((audit) => audit.eid === 31 && audit.event.kind === 'end');
    expect(ends).toHaveLength(20);
    expect(ends.every((audit) => audit.event.kind === 'end' && audit.event.ok)).toBe(true);
    own.close();
  });
});
