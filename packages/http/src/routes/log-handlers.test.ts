import type { CyrnelHost } from '@cyrnel/core';
import type { LogLine, LogLineLevel } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { createApp } from '../create-app';
import type { LogSource } from '../operations';

/** A buffer of lines as an embedder keeps one: the newest `capacity`, followers told of each new one. */
function createBuffer(
  capacity: number,
): LogSource & { write(level: LogLineLevel, msg: string, more?: Partial<LogLine>): void } {
  const lines: LogLine[] = [];
  const listeners = new Set<(line: LogLine) => void>();
  let seq = 0;
  return {
    capacity,
    lines: () => [...lines],
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    write(level, msg, more = {}) {
      const line: LogLine = {
        seq: ++seq,
        time: new Date().toISOString(),
        level,
        msg,
        component: null,
        processId: null,
        fields: {},
        ...more,
      };
      lines.push(line);
      if (lines.length > capacity) lines.shift();
      for (const listener of listeners) listener(line);
    },
  };
}

const host = {} as CyrnelHost;
const warnings: string[] = [];
const logger = { info() {}, warn: (message: string) => warnings.push(message), error() {} };

/** Read SSE `log` events from `response` until `count` arrived. */
async function readLines(response: Response, count: number): Promise<LogLine[]> {
  const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const decoder = new TextDecoder();
  let text = '';
  const parsed = () =>
    text
      .split('\n\n')
      .filter((block) => block.includes('event: log'))
      .map(
        (block) =>
          JSON.parse(
            block
              .split('\n')
              .find((row) => row.startsWith('data: '))
              ?.slice(6) ?? '',
          ) as LogLine,
      );
  while (parsed().length < count) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value);
  }
  await reader.cancel();
  return parsed();
}

describe('GET /logs', () => {
  it('lists the newest matching lines, oldest first, by level, component, process and seq', async () => {
    const logs = createBuffer(5);
    const app = createApp(host, { logs });
    logs.write('debug', 'noise');
    logs.write('info', 'request', { component: 'http' });
    logs.write('warn', 'slow', { component: 'core', processId: 7 });
    logs.write('error', 'broke', { component: 'core', processId: 8 });
    const list = async (query = '') => {
      const response = await app.request(`/logs${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as { items: LogLine[]; capacity: number };
    };
    expect((await list()).items.map((line) => line.msg)).toEqual(['noise', 'request', 'slow', 'broke']);
    expect((await list()).capacity).toBe(5);
    expect((await list('?level=warn')).items.map((line) => line.msg)).toEqual(['slow', 'broke']);
    expect((await list('?component=core')).items.map((line) => line.msg)).toEqual(['slow', 'broke']);
    expect((await list('?processId=7')).items.map((line) => line.msg)).toEqual(['slow']);
    expect((await list('?tail=2')).items.map((line) => line.msg)).toEqual(['slow', 'broke']);
    expect((await list('?after=2')).items.map((line) => line.seq)).toEqual([3, 4]);
    // Only the newest five are kept.
    for (const n of [1, 2, 3]) logs.write('info', `more ${n}`);
    expect((await list()).items.map((line) => line.seq)).toEqual([3, 4, 5, 6, 7]);
  });

  it('refuses a level, a number or a switch it cannot read, naming it', async () => {
    const app = createApp(host, { logs: createBuffer(5) });
    for (const [query, name] of [
      ['level=verbose', 'level'],
      ['processId=x', 'processId'],
      ['tail=-1', 'tail'],
      ['follow=yes', 'follow'],
      ['since=1', 'since'],
    ] as const) {
      const response = await app.request(`/logs?${query}`);
      expect(response.status, query).toBe(400);
      expect(await response.json()).toMatchObject({
        reason: 'invalid_request',
        error: expect.stringContaining(name),
      });
    }
  });

  it('follows with follow=1 or Accept: text/event-stream: the backlog, then new lines as they come', async () => {
    const logs = createBuffer(10);
    const app = createApp(host, { logs });
    logs.write('info', 'before', { component: 'core' });
    const followed = await app.request('/logs?follow=1&component=core');
    expect(followed.headers.get('content-type')).toContain('text/event-stream');
    logs.write('info', 'elsewhere', { component: 'http' });
    logs.write('warn', 'after', { component: 'core' });
    expect((await readLines(followed, 2)).map((line) => line.msg)).toEqual(['before', 'after']);
    // A reconnecting EventSource resumes after the last id it saw.
    const resumed = await app.request('/logs', {
      headers: { accept: 'text/event-stream', 'last-event-id': '1' },
    });
    logs.write('info', 'latest', { component: 'core' });
    expect((await readLines(resumed, 3)).map((line) => line.msg)).toEqual(['elsewhere', 'after', 'latest']);
  });

  it('drops a follower that does not read instead of holding what it is sent', async () => {
    const logs = createBuffer(10);
    // Each stream may hold at most 2,000 characters of lines unsent.
    const app = createApp(host, { logs, logger, maxEventQueueBytes: 2000 });
    const stalled = await app.request('/logs?follow=true&tail=0');
    for (let i = 0; i < 200; i++) logs.write('info', `line ${i} ${'x'.repeat(100)}`);
    await expect.poll(() => warnings).toContain('logs stream dropped: the client reads too slowly');
    // Its stream ends once what it was sent before the drop is read.
    expect(await stalled.text()).not.toContain('line 199');
  });

  it('counts followers among the event streams (429 too_many_streams beyond)', async () => {
    const app = createApp(host, { logs: createBuffer(10), maxEventStreams: 1 });
    const first = await app.request('/logs?follow=1');
    const second = await app.request('/logs?follow=1');
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ reason: 'too_many_streams' });
    await first.body?.cancel();
  });

  it('keeps at most maxLogFollowers followers, a place freed as one leaves; listing is never refused', async () => {
    const logs = createBuffer(10);
    const app = createApp(host, { logs, maxLogFollowers: 2 });
    const followers = [await app.request('/logs?follow=1'), await app.request('/logs?follow=1')];
    const third = await app.request('/logs?follow=1');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).not.toBeNull();
    expect(await third.json()).toMatchObject({
      reason: 'too_many_streams',
      error: 'too many followers of the log (at most 2); retry later',
    });
    expect((await app.request('/logs')).status).toBe(200);
    await followers[0]?.body?.cancel();
    await expect
      .poll(async () => {
        const again = await app.request('/logs?follow=1');
        await again.body?.cancel();
        return again.status;
      })
      .toBe(200);
    await followers[1]?.body?.cancel();
  });

  it('is not served without a log source, nor /metrics without metrics', async () => {
    const app = createApp(host);
    expect((await app.request('/logs')).status).toBe(404);
    expect((await app.request('/metrics')).status).toBe(404);
    const served = createApp(host, {
      metrics: { contentType: 'text/plain; version=0.0.4', text: async () => 'up 1\n' },
    });
    const metrics = await served.request('/metrics');
    expect(metrics.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect(await metrics.text()).toBe('up 1\n');
  });
});
