import { connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWithinBaseline } from '../../../../vitest.timing';
import type { RunningServer } from '../../src/index';
import { apiClient, startTestServer, tempDir } from '../helpers';
import { expectHealthDuring, probeHealth } from './health-probe';

const ADMIN = 'operations-floods-admin';
/** Scrapes sent at once, on each of the two addresses that serve the metrics. */
const SCRAPES = 2_000;

/** The floor of the bound on `/health` during the scrapes (see the test). */
const SCRAPES_FLOOR_MS = 4_000;
/** Followers of the log asked for at once: far more than the server keeps open. */
const FOLLOWERS = 1_000;
/** Of them, those that never read a byte of the stream (raw sockets, paused). */
const STALLED = 300;
/** Followers of the log the server keeps at once (`maxLogFollowers` of `@cyrnel/http`, its default). */
const MAX_FOLLOWERS = 16;
/** Requests sent while the followers are open, each one log line to every follower. */
const LOGGED_REQUESTS = 2_000;

/**
 * `count` scrapes of `url` sent at once from a worker thread, so that reading their answers (tens
 * of megabytes together) is not measured as the server's stall: the server shares this thread.
 * Answers each scrape's status and whether it held the metrics.
 */
function scrapeFromWorker(
  url: string,
  headers: Record<string, string>,
  count: number,
): Promise<{ status: number; info: boolean }[]> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { url, headers, count } = workerData;
    Promise.all(Array.from({ length: count }, async () => {
      try {
        const response = await fetch(url, { headers });
        const text = await response.text();
        return { status: response.status, info: text.includes('cyrnel_info{') };
      } catch (error) {
        return { status: -1, info: false, error: String(error) };
      }
    })).then((answers) => parentPort.postMessage(answers));
  `;
  const worker = new Worker(code, { eval: true, workerData: { url, headers, count } });
  return new Promise((resolve, reject) => {
    worker.once('message', (answers) => {
      resolve(answers);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/** The worst `/health` latency of the server at `url` while `attack` runs, and what it answered. */
async function worstHealthDuring<T>(url: string, attack: () => Promise<T>): Promise<[number, T]> {
  const probe = probeHealth(url);
  const outcome = await attack().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const latencies = await probe.stop();
  if ('error' in outcome) throw outcome.error;
  expect(latencies.length, 'no /health probe answered').toBeGreaterThan(0);
  return [Math.max(...latencies), outcome.value];
}

/** A line's `GET` as a raw socket that reads the status line, then never another byte. */
async function stalledFollower(url: string): Promise<{ status: number; socket: Socket }> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(`GET /logs?follow=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`);
  const first = await new Promise<string>((resolve) => {
    socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')));
    socket.once('close', () => resolve(''));
  });
  socket.pause();
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(first)?.[1] ?? -1), socket };
}

/** A follower that reads everything it is sent until `signal` aborts; answers its status and reason. */
async function readingFollower(
  url: string,
  signal: AbortSignal,
): Promise<{ status: number; reason?: string; bytes: number }> {
  const response = await fetch(`${url}/logs?follow=1&tail=5`, {
    headers: { authorization: `Bearer ${ADMIN}` },
    signal,
  });
  if (response.status !== 200) {
    const body = (await response.json()) as { reason: string };
    return { status: response.status, reason: body.reason, bytes: 0 };
  }
  let bytes = 0;
  try {
    for await (const chunk of response.body as ReadableStream<Uint8Array>) bytes += chunk.length;
  } catch {
    // Aborted at the end of the test, as a client leaving.
  }
  return { status: 200, bytes };
}

describe('floods of /metrics and /logs', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: RunningServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    dir = await tempDir();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: ADMIN,
      metricsListen: { host: '127.0.0.1', port: 0 },
    });
    api = apiClient(server.url, ADMIN);
    // Something to count: a run, so the scrape renders the runs' histograms too.
    const run = await api('POST', '/processes', { code: 'cyrnel.output(1)', wait: true });
    expect(run.status, run.text).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
  });

  for (const where of ['the API port with an admin key', '--metrics-listen without a key'] as const) {
    it(`keeps /health prompt through ${SCRAPES} scrapes at once on ${where}`, async () => {
      const metricsUrl = where.startsWith('the API')
        ? `${server.url}/metrics`
        : `${server.metricsUrl as string}/metrics`;
      const headers: Record<string, string> = where.startsWith('the API')
        ? { authorization: `Bearer ${ADMIN}` }
        : {};
      // Thousands of connections at once cost the event loop what accepting them and reading their
      // requests costs, whatever they ask: the baseline is as many requests the server answers
      // without a thought (`/health` on the API port, a 404 on the listener), at once. When each
      // scrape rendered the metrics itself (listing the process's open files anew), /health waited
      // 12 s on the API port and 14 s on the listener; sharing renderings, 0.8–2.4 s (the scrapes'
      // answers weigh 40 KB each). The floor sits between the two.
      const trivialUrl = where.startsWith('the API')
        ? `${server.url}/health`
        : `${server.metricsUrl as string}/nothing-here`;
      const [baselineMs] = await worstHealthDuring(server.url, () =>
        scrapeFromWorker(trivialUrl, headers, SCRAPES),
      );
      const [attackMs, answers] = await worstHealthDuring(server.url, () =>
        scrapeFromWorker(metricsUrl, headers, SCRAPES),
      );
      expectWithinBaseline(
        `/health during ${SCRAPES} scrapes at once on ${where}, against as many trivial requests`,
        {
          attackMs,
          baselineMs,
          floorMs: SCRAPES_FLOOR_MS,
        },
      );
      expect(answers.filter((answer) => answer.status !== 200 || !answer.info)).toEqual([]);
      // Each scrape is a snapshot of now: one after the flood counts the flood's requests.
      const after = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect(after.headers.get('cache-control')).toBe('no-store');
      const text = await after.text();
      if (where.startsWith('the API')) {
        const counted =
          /cyrnel_http_requests_total\{method="GET",route="\/metrics",status="200"\} (\d+)/.exec(text);
        expect(Number(counted?.[1])).toBeGreaterThanOrEqual(SCRAPES);
      }
    }, 120_000);
  }

  it(`keeps /health prompt with ${FOLLOWERS} log followers asked for at once, ${STALLED} never reading, while lines are written`, async () => {
    const controller = new AbortController();
    const stalled: Socket[] = [];
    try {
      const [followers, stalledStatuses] = await expectHealthDuring(
        `/health during ${FOLLOWERS} log followers (${STALLED} never reading) and ${LOGGED_REQUESTS} logged requests`,
        server.url,
        async () => {
          const reading = Promise.all(
            Array.from({ length: FOLLOWERS - STALLED }, () => readingFollower(server.url, controller.signal)),
          );
          const statuses: number[] = [];
          for (let i = 0; i < STALLED; i += 50) {
            const batch = await Promise.all(Array.from({ length: 50 }, () => stalledFollower(server.url)));
            for (const { status, socket } of batch) {
              statuses.push(status);
              stalled.push(socket);
            }
          }
          // Lines for every follower: each request is one, of about 1 KB (its path).
          const long = `/flood-${'x'.repeat(700)}`;
          for (let sent = 0; sent < LOGGED_REQUESTS; sent += 50) {
            await Promise.all(Array.from({ length: 50 }, () => api('GET', long)));
          }
          controller.abort();
          return [await reading, statuses] as const;
        },
      );
      const accepted =
        followers.filter((f) => f.status === 200).length + stalledStatuses.filter((s) => s === 200).length;
      // The server keeps at most its limit of followers; every other one is refused at once with a
      // stable reason, never left hanging.
      expect(accepted).toBe(MAX_FOLLOWERS);
      const refused = followers.filter((f) => f.status !== 200);
      expect(new Set(refused.map((f) => `${f.status} ${f.reason}`))).toEqual(
        new Set(['429 too_many_streams']),
      );
      expect(new Set(stalledStatuses.filter((s) => s !== 200))).toEqual(new Set([429]));
      expect(refused.length + stalledStatuses.filter((s) => s !== 200).length).toBe(FOLLOWERS - accepted);
    } finally {
      controller.abort();
      for (const socket of stalled) socket.destroy();
    }
    // Once the followers are gone, following works again.
    await expect
      .poll(
        async () => {
          const again = new AbortController();
          const response = await fetch(`${server.url}/logs?follow=1&tail=0`, {
            headers: { authorization: `Bearer ${ADMIN}` },
            signal: again.signal,
          });
          again.abort();
          return response.status;
        },
        { timeout: 30_000 },
      )
      .toBe(200);
  }, 180_000);
});
