import type { ServerResponse } from 'node:http';
import type { ProcessEvent } from '@cyrnel/sdk/api';
import { afterEach, describe, expect, it } from 'vitest';
import { CyrnelHttpError, CyrnelNetworkError, CyrnelTimeoutError, createClient } from '../src/index';
import { sendJson, startWireServer, type WireServer } from './wire-server';

let server: WireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const EVENTS: ProcessEvent[] = [
  { type: 'state', data: { state: 'running', exitState: null } },
  { type: 'stdout', data: { text: 'hello\n' } },
  { type: 'output', data: { patch: { a: 1 } } },
  { type: 'stderr', data: { text: 'warn\n' } },
  { type: 'state', data: { state: 'idle', exitState: 'success' } },
  { type: 'exit', data: { exitState: 'success', error: null, errorReason: null } },
];

function writeEvents(res: ServerResponse, events: ProcessEvent[]): void {
  for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
}

function openStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(': heartbeat\n\nretry: 10\n\n');
}

async function collect(iterator: AsyncIterable<ProcessEvent>): Promise<ProcessEvent[]> {
  const events: ProcessEvent[] = [];
  for await (const event of iterator) events.push(event);
  return events;
}

describe('processes.events', () => {
  it('yields typed events and ends at exit', async () => {
    server = await startWireServer((_req, res) => {
      openStream(res);
      writeEvents(res, EVENTS);
      // Keeps the connection open: the iterator must stop on `exit` by itself.
    });
    const events = await collect(createClient({ baseUrl: server.baseUrl }).processes.events(9));
    expect(events).toEqual(EVENTS);
    expect(server.seen[0]?.url).toBe('/processes/9/events');
    expect(server.seen[0]?.headers.accept).toBe('text/event-stream');
  });

  it('reconnects after a drop and skips the replayed events', async () => {
    let connections = 0;
    server = await startWireServer((_req, res) => {
      connections += 1;
      openStream(res);
      if (connections === 1) {
        writeEvents(res, EVENTS.slice(0, 2));
        setTimeout(() => res.destroy(), 20);
      } else if (connections === 2) {
        // A clean end without `exit` is a drop too.
        writeEvents(res, EVENTS.slice(0, 3));
        res.end();
      } else {
        writeEvents(res, EVENTS);
        res.end();
      }
    });
    const events = await collect(
      createClient({ baseUrl: server.baseUrl }).processes.events(1, { retryDelayMs: 10 }),
    );
    expect(events).toEqual(EVENTS);
    expect(connections).toBe(3);
  });

  it('yields only the unseen tail when the replay coalesces chunks or synthesizes a finished run', async () => {
    const replays: ProcessEvent[][] = [
      [
        { type: 'state', data: { state: 'queued', exitState: null } },
        { type: 'state', data: { state: 'running', exitState: null } },
        { type: 'stdout', data: { text: 'a' } },
        { type: 'stdout', data: { text: 'b' } },
        { type: 'output', data: { patch: { a: 1 } } },
      ],
      [
        { type: 'state', data: { state: 'queued', exitState: null } },
        { type: 'state', data: { state: 'running', exitState: null } },
        { type: 'stdout', data: { text: 'abc' } },
        { type: 'output', data: { patch: { a: 1 } } },
      ],
      [
        { type: 'state', data: { state: 'idle', exitState: 'success' } },
        { type: 'stdout', data: { text: 'abcd' } },
        { type: 'output', data: { patch: { a: 1, b: 2 } } },
        { type: 'exit', data: { exitState: 'success', error: null, errorReason: null } },
      ],
    ];
    let connection = 0;
    server = await startWireServer((_req, res) => {
      openStream(res);
      writeEvents(res, replays[connection] ?? []);
      connection += 1;
      res.end();
    });
    const events = await collect(
      createClient({ baseUrl: server.baseUrl }).processes.events(1, { retryDelayMs: 1 }),
    );
    expect(events).toEqual([
      { type: 'state', data: { state: 'queued', exitState: null } },
      { type: 'state', data: { state: 'running', exitState: null } },
      { type: 'stdout', data: { text: 'a' } },
      { type: 'stdout', data: { text: 'b' } },
      { type: 'output', data: { patch: { a: 1 } } },
      { type: 'stdout', data: { text: 'c' } },
      { type: 'state', data: { state: 'idle', exitState: 'success' } },
      { type: 'stdout', data: { text: 'd' } },
      { type: 'output', data: { patch: { a: 1, b: 2 } } },
      { type: 'exit', data: { exitState: 'success', error: null, errorReason: null } },
    ]);
  });

  it('gives up with CyrnelNetworkError after maxRetries consecutive drops', async () => {
    server = await startWireServer((_req, res) => res.destroy());
    const error = await collect(
      createClient({ baseUrl: server.baseUrl }).processes.events(1, { retryDelayMs: 1, maxRetries: 2 }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CyrnelNetworkError);
    expect(server.seen).toHaveLength(3);
  });

  it('does not retry API errors', async () => {
    server = await startWireServer((_req, res) =>
      sendJson(res, 404, { error: 'process 5 not found', code: 'not_found' }),
    );
    const error = await collect(createClient({ baseUrl: server.baseUrl }).processes.events(5)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CyrnelHttpError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(server.seen).toHaveLength(1);
  });

  it('bounds the wait for headers by timeoutMs, and 0 means no deadline', async () => {
    server = await startWireServer((_req, res) => {
      // Headers come late: past a 50 ms client deadline.
      setTimeout(() => {
        openStream(res);
        writeEvents(res, EVENTS);
      }, 150);
    });
    const client = createClient({ baseUrl: server.baseUrl, timeoutMs: 50 });
    const late = await collect(client.processes.events(4, { maxRetries: 0 })).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(CyrnelTimeoutError);
    expect(late).toMatchObject({ timeoutMs: 50 });
    expect(await collect(client.processes.events(4, { timeoutMs: 0 }))).toEqual(EVENTS);
  });

  it('stops with the abort reason when the signal aborts mid-stream', async () => {
    server = await startWireServer((_req, res) => {
      openStream(res);
      writeEvents(res, EVENTS.slice(0, 1));
    });
    const controller = new AbortController();
    const seen: ProcessEvent[] = [];
    const error = await (async () => {
      for await (const event of createClient({ baseUrl: server!.baseUrl }).processes.events(2, {
        signal: controller.signal,
      })) {
        seen.push(event);
        controller.abort(new Error('enough'));
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(EVENTS.slice(0, 1));
    expect(error).toMatchObject({ message: 'enough' });
  });
});
