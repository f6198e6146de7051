import { connect } from 'node:net';
import { createClient } from '@cyrnel/client';
import type { LogLine } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { UPSTREAM_KEY, useShopServer } from './helpers';

const ADMIN = 'logs-admin-key-0123456789';

describe('GET /logs', () => {
  // Each event stream may hold at most 4 KiB unsent: a replay or a follower past it is dropped.
  const { api, url } = useShopServer({ apiKey: ADMIN, maxEventQueueBytes: 4096 });
  const lines = async (query = ''): Promise<LogLine[]> => {
    const response = await api('GET', `/logs${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body.items;
  };

  it("keeps the server's lines, filtered by level, component and process", async () => {
    expect((await api('GET', '/health')).status).toBe(200);
    // A finished process whose replay (10 KB of stdout) does not fit its stream's 4 KiB: the
    // stream is dropped, with a warning naming the process.
    const run = await api('POST', '/processes', { code: 'console.log("x".repeat(10_000));', wait: true });
    expect(run.body.exitState).toBe('success');
    const id = run.body.id as number;
    await api('GET', `/processes/${id}/events`);
    const ofProcess = await lines(`?processId=${id}`);
    expect(ofProcess).toEqual([
      expect.objectContaining({
        level: 'warn',
        component: 'http',
        processId: id,
        msg: 'events stream dropped: the client reads too slowly',
      }),
    ]);
    const warnings = await lines('?level=warn');
    expect(warnings.length).toBeGreaterThan(0);
    for (const line of warnings) expect(['warn', 'error']).toContain(line.level);
    const http = await lines('?component=http&tail=1000');
    for (const line of http) expect(line.component).toBe('http');
    expect(http.some((line) => line.msg === 'request' && line.fields.path === '/health')).toBe(true);
    const core = await lines('?component=core');
    expect(core.some((line) => line.msg === 'module activated' && line.fields.module === 'openapi')).toBe(
      true,
    );
    // Oldest first, numbered: `after` reads only what came since.
    const all = await lines('?tail=1000');
    expect(all.map((line) => line.seq)).toEqual([...all.map((line) => line.seq)].sort((a, b) => a - b));
    const last = all.at(-1)?.seq as number;
    expect((await lines(`?after=${last}`)).every((line) => line.seq > last)).toBe(true);
    expect((await lines('?tail=3')).length).toBe(3);
  });

  it('refuses a level it does not know, naming it', async () => {
    const response = await api('GET', '/logs?level=loud');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      reason: 'invalid_request',
      error: expect.stringContaining('level'),
    });
  });

  it('never shows a secret the server holds, listed or followed', async () => {
    const follower = await fetch(`${url()}/logs?follow=1&component=http&tail=0`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(follower.headers.get('content-type')).toContain('text/event-stream');
    // Paths carrying the service's secret and the server's key: each is logged as a request.
    expect((await api('GET', `/services/${UPSTREAM_KEY}`)).status).toBeGreaterThanOrEqual(400);
    expect((await api('GET', `/tools/${ADMIN}/x`)).status).toBeGreaterThanOrEqual(400);
    expect((await api('GET', '/health')).status).toBe(200);
    const followed = await readUntil(follower, (text) => text.includes('"/health"'));
    const listed = (await api('GET', '/logs?tail=2000')).text;
    for (const text of [followed, listed]) {
      expect(text).not.toContain(UPSTREAM_KEY);
      expect(text).not.toContain(ADMIN);
      expect(text).toContain('/services/***');
      expect(text).toContain('/tools/***/x');
    }
  });

  it('follows live with the client: the backlog, then each new line as it is written', async () => {
    const client = createClient({ baseUrl: url(), apiKey: ADMIN });
    const controller = new AbortController();
    const seen: LogLine[] = [];
    const following = (async () => {
      for await (const line of client.logs.follow(
        { component: 'http', level: 'info', tail: 1 },
        { signal: controller.signal },
      )) {
        seen.push(line);
        if (line.fields.path === '/followed-2') controller.abort(new Error('seen enough'));
      }
    })();
    await expect.poll(() => seen.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    for (const path of ['/followed-1', '/followed-2']) expect((await api('GET', path)).status).toBe(404);
    await expect(following).rejects.toThrow('seen enough');
    const paths = seen.map((line) => line.fields.path);
    expect(paths.indexOf('/followed-1')).toBeLessThan(paths.indexOf('/followed-2'));
    expect(seen.map((line) => line.seq)).toEqual(
      [...new Set(seen.map((line) => line.seq))].sort((a, b) => a - b),
    );
  });

  it('drops a follower that does not read instead of holding what it is sent', async () => {
    const { port } = new URL(url());
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // Asks to follow every line, then never reads another byte.
    socket.write(`GET /logs?follow=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`);
    socket.pause();
    const dropped = async () =>
      (await lines('?level=warn&component=http')).some(
        (line) => line.msg === 'logs stream dropped: the client reads too slowly',
      );
    try {
      // Lines of about 7 KB each, until the socket's buffers are full and the queue behind them too.
      const long = `/flood-${'x'.repeat(7000)}`;
      let sent = 0;
      while (!(await dropped())) {
        expect(sent, 'the stalled follower was never dropped').toBeLessThan(5000);
        await Promise.all(Array.from({ length: 50 }, () => api('GET', long)));
        sent += 50;
      }
      expect((await api('GET', '/health')).status).toBe(200);
    } finally {
      socket.destroy();
    }
  });
});

describe('GET /logs followers on a server that allows one (--max-log-followers 1)', () => {
  const { api, url } = useShopServer({ apiKey: ADMIN, maxLogFollowers: 1 });

  it('answers a second follower 429 too_many_streams and takes one again once the first left', async () => {
    const follow = () =>
      fetch(`${url()}/logs?follow=1&tail=0`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const first = await follow();
    expect(first.status).toBe(200);
    const second = await follow();
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ reason: 'too_many_streams' });
    // Listing is never refused.
    expect((await api('GET', '/logs?tail=1')).status).toBe(200);
    await first.body?.cancel();
    await expect
      .poll(async () => {
        const again = await follow();
        await again.body?.cancel();
        return again.status;
      })
      .toBe(200);
  });
});

/** Read an SSE response until `done` says its text so far is enough, then cancel it. */
async function readUntil(response: Response, done: (text: string) => boolean): Promise<string> {
  const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const decoder = new TextDecoder();
  let text = '';
  while (!done(text)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  await reader.cancel();
  return text;
}
