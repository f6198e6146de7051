import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { CatalogChange } from '@cyrnel/sdk';
import { createEgressFrameReader, encodeEgressFrame } from '@cyrnel/sdk/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PreparedCall } from '../src/direct-calls/prepared-call';
import { readCallJournal } from '../src/gateway/call-journal';
import { createEgressGateway, type EgressGateway } from '../src/gateway/egress-gateway';
import type { AuditEvent } from '../src/gateway/gateway-protocol';
import type { RelayedSpan } from '../src/telemetry/relayed-span';
import type { TracingOptions } from '../src/telemetry/tracing';

/** The OpenTelemetry API the adapter records its span with (one global per thread, as any adapter's). */
const OTEL_API = pathToFileURL(createRequire(import.meta.url).resolve('@opentelemetry/api')).href;

// A portable adapter as a module file (the workers import it by URL): one HTTP request per call
// to `<baseUrl>/<toolId>`, with the service's secret as a header; `traced` records a span.
const ADAPTER = `
import otel from '${OTEL_API}';
export const probe = {
  instantiate() {
    const services = new Map();
    return {
      async setup() {},
      async teardown() {},
      async hydrateService(state) { services.set(state.id, state); },
      async dehydrateService(id) { services.delete(id); },
      async invoke({ serviceId, toolId, parameters, signal }) {
        if (toolId === 'traced') otel.trace.getTracer('probe').startSpan('probe traced').end();
        if (toolId === 'bomb') {
          const held = [];
          for (;;) held.push(new Array(100_000).fill(held.length));
        }
        const state = services.get(serviceId);
        const response = await fetch(state.config.baseUrl + '/' + toolId + '?n=' + (parameters.n ?? ''), {
          headers: { 'x-key': state.secrets.key },
          signal,
        });
        return { status: response.status, body: await response.json() };
      },
    };
  },
};
`;

/** A nested answer `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { v: value };
  return value;
}

interface Answer {
  readonly header: { id: number; ok?: boolean; host?: true; unprepared?: true; error?: { reason: string } };
  readonly body: string;
}

/** A client of one worker socket, as a sandbox process would be (or a forger). */
function client(path: string, token: string) {
  const socket: Socket = connect(path);
  const waiting = new Map<number, (answer: Answer) => void>();
  let next = 1;
  socket.write(encodeEgressFrame({ token }));
  socket.on(
    'data',
    createEgressFrameReader(
      1 << 30,
      (header, body) => {
        const answer = { header: header as Answer['header'], body: body.toString('utf8') };
        waiting.get(answer.header.id)?.(answer);
      },
      () => socket.destroy(),
    ),
  );
  // Calls still waiting when the connection goes down end without an answer of the gateway's.
  socket.on('close', () => {
    for (const [id, resolve] of waiting)
      resolve({ header: { id, error: { reason: 'connection_lost' } }, body: '' });
    waiting.clear();
  });
  socket.on('error', () => socket.destroy());
  return {
    call(eid: number, toolId: string, parameters: Record<string, unknown> = {}, serviceId = 'svc') {
      const id = next++;
      return new Promise<Answer>((resolve) => {
        waiting.set(id, resolve);
        socket.write(encodeEgressFrame({ id, eid, serviceId, toolId, parameters }));
      });
    },
    close: () => socket.destroy(),
  };
}

/** Whether something accepts connections on the Unix socket at `path`. */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the egress gateway (real worker threads, real sockets, real HTTP)', () => {
  let dir: string;
  let upstream: Server;
  let baseUrl = '';
  const hits: { path: string; key: string | undefined }[] = [];
  const log: string[] = [];
  let secret = 'first-secret';
  let enabled = true;
  let changeOnPrepare = false;
  let listener: ((change: CatalogChange) => Promise<void>) | undefined;
  let revision = 1;
  let gateway: EgressGateway | undefined;
  const audits: { eid: number; event: AuditEvent }[] = [];

  const prepared = (toolId: string): PreparedCall => ({
    revision: `r${revision}`,
    adapter: {
      moduleUrl: pathToFileURL(join(dir, 'adapter.mjs')).href,
      exportName: 'probe',
      config: {},
      secrets: {},
      outbound: null,
      invokeMs: 30_000,
    },
    service: {
      id: 'svc',
      adapterDomain: {},
      config: { baseUrl },
      secrets: { key: secret },
    } as unknown as PreparedCall['service'],
    tool: {
      id: toolId,
      state: { adapterDomain: {} } as unknown as PreparedCall['tool']['state'],
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
    },
  });
  const start = (
    budget?: { maxBytes?: number; maxDepth?: number; maxElements?: number },
    workerMemoryMb?: number,
    idleTimeoutMs?: number,
    tracing?: TracingOptions,
    journalDir?: string,
  ) => {
    gateway = createEgressGateway({
      host: {
        prepare: async (serviceId, toolId) => {
          if (changeOnPrepare) {
            // Another catalog change reaches the workers while this preparation is under way.
            changeOnPrepare = false;
            await change();
          }
          return serviceId === 'svc' && enabled && typeof toolId === 'string' ? prepared(toolId) : undefined;
        },
        onChange(next) {
          listener = next;
          return () => {
            listener = undefined;
          };
        },
      },
      workers: 2,
      ...(budget ? { budget } : {}),
      ...(workerMemoryMb ? { workerMemoryMb } : {}),
      ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
      ...(tracing ? { tracing } : {}),
      ...(journalDir ? { journalDir } : {}),
    });
    gateway.audit((eid, event) => {
      audits.push({ eid, event });
      if (event.kind === 'start') log.push(`start ${event.toolId}`);
      return eid < 1000;
    });
    return gateway;
  };
  const change = async () => {
    revision++;
    await listener?.({ revision: `r${revision}`, dropped: enabled ? [] : ['svc'] });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cyrnel-egress-core-'));
    writeFileSync(join(dir, 'adapter.mjs'), ADAPTER);
    upstream = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const key = request.headers['x-key'];
      hits.push({ path, key: typeof key === 'string' ? key : undefined });
      log.push(`hit ${path}`);
      const json = (body: unknown) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (path === '/hold') return;
      if (path === '/guarded' && key !== 'refreshed-secret')
        return response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"refused"}');
      if (path === '/big') return json({ text: 'x'.repeat(200_000) });
      if (path === '/deep') return json(nested(100));
      if (path === '/wide') return json(Array.from({ length: 20_000 }, (_, i) => i));
      json({ path });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });
  afterAll(async () => {
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves granted executions only, audits each call before it leaves, and keeps its sockets private', async () => {
    const egress = start();
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
    const egress = start(undefined, undefined, undefined, undefined, journalDir);
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
    await change();
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
    const egress = start(undefined, undefined, 200);
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
    const egress = start(undefined, undefined, undefined, {
      exportRelayed: (spans) => relayed.push(...spans),
      exportPort: () => {
        const { port1, port2 } = new MessageChannel();
        port1.on('message', (batch: unknown[]) => overPorts.push(...batch));
        ports.push(port1);
        return port2;
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
    const egress = start();
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

  it('aborts a revoked execution’s call in flight and records its end', async () => {
    const egress = start();
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
    const egress = start();
    const channel = egress.open();
    await channel.grant(3);
    const own = client(channel.endpoints[0] as string, channel.token);
    hits.length = 0;
    // Both workers prepare the tool (calls alternate between sockets only by choice: use both).
    const second = client(channel.endpoints[1] as string, channel.token);
    await own.call(3, 'echo');
    await second.call(3, 'echo');
    secret = 'second-secret';
    await change();
    await own.call(3, 'echo');
    await second.call(3, 'echo');
    expect(hits.map((hit) => hit.key)).toEqual([
      'first-secret',
      'first-secret',
      'second-secret',
      'second-secret',
    ]);
    enabled = false;
    await change();
    expect((await own.call(3, 'echo')).header).toMatchObject({ host: true, unprepared: true });
    expect((await second.call(3, 'echo')).header).toMatchObject({ host: true, unprepared: true });
    expect(hits).toHaveLength(4);
    enabled = true;
    secret = 'first-secret';
    await change();
    // What was not prepared before the change is prepared again after it.
    expect((await own.call(3, 'echo')).header).toMatchObject({ ok: true });
    expect(hits).toHaveLength(5);
    own.close();
    second.close();
  });

  it('makes a call refused with 401 once more after the refresh, prepared anew even when another change arrives meanwhile', async () => {
    const egress = start();
    const refreshes: string[] = [];
    egress.reauthorize(async (instanceId) => {
      refreshes.push(instanceId);
      secret = 'refreshed-secret';
      await change();
      // The preparation of the call made again meets a change of its own (another host's write).
      changeOnPrepare = true;
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
    expect(changeOnPrepare).toBe(false);
    own.close();
    secret = 'first-secret';
  });

  it('fails only the oversized answer (bytes, depth, elements) with upstream_answer_too_large', async () => {
    const egress = start({ maxBytes: 100_000, maxElements: 10_000 });
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
    const egress = start(undefined, 96);
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
