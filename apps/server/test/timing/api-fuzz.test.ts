import { listRoutes } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/index';
import { rawRequest } from '../boundary-helpers';
import { seededRandom, useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

// Random nested, huge and malformed bodies, query strings and headers on every route of the API
// (the SDK's route table, which the server's routes come from), against a real server on loopback. No
// answer may be a 500, and /health must keep answering within the bound of `vitest.timing.ts`
// (ten times its worst probe without the fuzz, at least a second). Seeded: CYRNEL_FUZZ_SEED=<n>
// replays a run; the seed is printed.

/**
 * Routes left out, each because it reaches beyond the machine by design (the npm registry, a
 * registry document, an authorization server): random input there would be a network test.
 */
const NOT_FUZZED = new Set([
  'modules.install',
  'modules.update',
  'services.installFromRegistry',
  'services.updateFromRegistry',
  'registries.services',
  'registries.modules',
  'connections.authorize',
]);

/** Every other route of the API's one table, so a route added is fuzzed without anyone listing it. */
const ROUTES: readonly (readonly [string, string])[] = listRoutes()
  .filter(({ resource, name }) => !NOT_FUZZED.has(`${resource}.${name}`))
  .map(({ route }) => [route.method, route.path] as const);

const REQUESTS = 1500;
const BUDGET_MS = 40_000;

function generators(random: () => number) {
  const int = (max: number) => Math.floor(random() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  // No ':' so no generated value is ever a URL a download could follow off the machine.
  const ALPHABET = 'abcXYZ019_-.$ é\u0000\u202e😀%/\\"\'<>{}[],';
  const text = (max = 40) => Array.from({ length: int(max) }, () => pick([...ALPHABET])).join('');
  const identifier = () =>
    pick([
      'typescript-ivm',
      'openapi',
      'shop',
      'x',
      '1',
      '0',
      '-1',
      '99999999999999999999',
      'a'.repeat(3000),
      text(),
      '%2e%2e',
      '..',
    ]);
  const scalar = (): unknown =>
    pick([null, true, false, 0, -1, 1.5, 1e308, -0, int(1e6), 'x', '', text(), 'y'.repeat(int(200_000))]);
  const value = (depth: number): unknown => {
    if (depth <= 0 || random() < 0.3) return scalar();
    if (random() < 0.5) return Array.from({ length: int(4) }, () => value(depth - 1));
    const object: Record<string, unknown> = {};
    for (let i = int(5); i > 0; i--) {
      object[
        pick([
          'code',
          'id',
          'adapter',
          'definition',
          'enabled',
          'config',
          'secrets',
          'envConfig',
          'ref',
          'timeoutMs',
          'autorun',
          'wait',
          'force',
          'op',
          'path',
          'value',
          'from',
          'role',
          'name',
          '__proto__',
          'constructor',
          text(8),
        ])
      ] = value(depth - 1);
    }
    return object;
  };
  const nested = (depth: number) =>
    random() < 0.5
      ? `${'['.repeat(depth)}${']'.repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const body = (): string | Buffer | undefined => {
    switch (int(9)) {
      case 0:
        return undefined;
      case 1:
        return nested(pick([63, 64, 65, 3000, 5000, 100_000]));
      case 2:
        return `[{"op":"add","path":"/a","value":${nested(pick([10, 5000, 50_000]))}}]`;
      case 3:
        return `{"code":"1","autorun":false,"envConfig":${nested(pick([10, 5000]))}}`;
      case 4:
        return pick([
          '{',
          '[',
          '{"a":',
          'nul',
          '"\\ud800"',
          '\u0000',
          '{"a":1}}',
          '1e99999',
          '[' + ','.repeat(1000) + ']',
        ]);
      case 5:
        return Buffer.from(Array.from({ length: int(2000) }, () => int(256)));
      case 6:
        return JSON.stringify({
          code: 'x'.repeat(int(300_000)),
          autorun: false,
          envConfig: { k: 'v'.repeat(int(100_000)) },
        });
      default:
        return JSON.stringify(value(6));
    }
  };
  const query = () => {
    if (random() < 0.4) return '';
    const keys = [
      'limit',
      'cursor',
      'enabled',
      'state',
      'exitState',
      'ref',
      'query',
      'type',
      'isBuiltin',
      'serviceId',
      'adapter',
      'keyId',
      'follow',
      'level',
      'component',
      'processId',
      'tail',
      'after',
      text(6),
    ];
    const values = [
      '1',
      '0',
      '-1',
      '100',
      '101',
      '1.5',
      'true',
      'false',
      'TRUE',
      'idle',
      'success',
      'warn',
      'http',
      text(),
      '%ZZ',
      '%00',
      'a'.repeat(int(5000)),
    ];
    const pairs = Array.from(
      { length: 1 + int(4) },
      () => `${encodeURIComponent(pick(keys))}=${encodeURIComponent(pick(values))}`,
    );
    return `?${pairs.join('&')}${random() < 0.1 ? '&&=&%' : ''}`;
  };
  // Header values a client can send at all: visible ASCII and Latin-1, spaces and tabs.
  const headerText = (max = 40) => text(max).replace(/[^\t\x20-\x7e\xa0-\xff]/g, '\xff');
  const headers = (host: string, hasBody: boolean): Record<string, string> => {
    const out: Record<string, string> = { host };
    if (hasBody || random() < 0.2) {
      out['content-type'] = pick([
        'application/json',
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=--x',
        'application/json; charset=utf-16',
        '',
        '\u00ff',
      ]);
    }
    if (random() < 0.2)
      out['sec-fetch-site'] = pick(['cross-site', 'same-site', 'same-origin', 'none', 'garbage']);
    if (random() < 0.2)
      out.origin = pick(['null', `http://${host}`, 'http://evil.example', 'https://x', headerText(10)]);
    if (random() < 0.1)
      out.host = pick(['evil.example', 'localhost', '[::1]', '', 'a'.repeat(300), `${host}:1`]);
    if (random() < 0.2)
      out.authorization = pick(['Bearer ', 'Bearer x', 'Basic Zm9vOmJhcg==', 'Bearer ' + 'k'.repeat(5000)]);
    if (random() < 0.2) out['x-request-id'] = pick(['ok-id', headerText(20), 'r'.repeat(500)]);
    if (random() < 0.1) out.accept = pick(['text/event-stream', '*/*', headerText(10)]);
    return out;
  };
  const path = (template: string) =>
    template.replace(/:(\w+)/g, (_, name: string) =>
      encodeURIComponent(
        name === 'id'
          ? pick(['1', '2', '0', '-1', 'abc', '1e3', '9007199254740993', identifier()])
          : identifier(),
      ),
    );
  return { int, pick, body, query, headers, path };
}

describe('API fuzz', () => {
  // Every `error` line (an unhandled error is one, with its stack) fails the run.
  const errors: string[] = [];
  const logger = createLogger({
    level: 'error',
    write: (line) => {
      if (!line.includes('"listening"')) errors.push(line.slice(0, 500));
    },
  });
  const { url } = useServer({ maxTimeoutMs: 2000, maxBodyBytes: 1024 * 1024, logger });

  it('never answers 500 and keeps /health fast under random input on every route', {
    timeout: 120_000,
  }, async () => {
    const seed = Number(process.env.CYRNEL_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`API fuzz seed: ${seed} (CYRNEL_FUZZ_SEED=${seed} replays it)`);
    const gen = generators(seededRandom(seed));
    const host = new URL(url()).host;
    // Every request is drawn before the probe starts (in the order the workers send them, so a
    // seed replays the same run): the server shares this thread, and drawing multi-megabyte
    // bodies meanwhile would be measured as the server's stall.
    const requests = Array.from({ length: REQUESTS }, () => {
      const [method, template] = gen.pick(ROUTES);
      const target = `${gen.path(template)}${gen.query()}`;
      const body = method === 'GET' && gen.int(10) > 0 ? undefined : gen.body();
      return { method, template, target, body, headers: gen.headers(host, body !== undefined) };
    });
    const failures: string[] = [];
    let sent = 0;
    let resets = 0;
    const worker = async (deadline: number) => {
      while (sent < REQUESTS && Date.now() < deadline) {
        const index = sent++;
        const { method, template, target, body, headers } = requests[index] as (typeof requests)[number];
        // Event streams: a process's, and the log followed (`?follow=1` or `Accept: text/event-stream`).
        const events = template.endsWith('/events') || template === '/logs';
        const response = await rawRequest(url(), method, target, headers, body, events ? 1000 : 15_000).catch(
          (error: unknown) => ({ status: -1, text: String(error), headers: {} }),
        );
        // Event streams of processes that never end are cut by the timeout, like a client leaving.
        // The server may answer (403, 404, 415…) without reading a large body and close the
        // connection: the client then sees a reset instead of the answer. Logged errors still count.
        const cut = response.status === -1 && /ECONNRESET|EPIPE/.test(response.text) && body !== undefined;
        if (cut) resets++;
        if (response.status === 500 || (response.status === -1 && !events && !cut)) {
          failures.push(
            `#${index} ${method} ${target.slice(0, 120)} ${JSON.stringify(headers).slice(0, 300)} → ${response.status} ${response.text.slice(0, 200)}`,
          );
        }
      }
    };
    await expectHealthDuring(`/health during the API fuzz (seed ${seed})`, url(), async () => {
      const deadline = Date.now() + BUDGET_MS;
      await Promise.all([worker(deadline), worker(deadline), worker(deadline)]);
    });
    console.log(`API fuzz: ${sent} requests (${resets} cut before the answer)`);
    expect(failures, `seed ${seed}`).toEqual([]);
    expect(errors, `seed ${seed}`).toEqual([]);
    expect((await rawRequest(url(), 'GET', '/health', { host })).status).toBe(200);
  });
});
