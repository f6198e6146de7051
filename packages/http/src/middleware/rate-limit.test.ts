import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv, Caller } from '../app-env';
import { createRateLimiter, rateLimit } from './rate-limit';

/** The limiter in front of routes answering 200, the caller set as `keyId` says. */
function limitedApp(options: Parameters<typeof rateLimit>[0]) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    const keyId = c.req.header('x-key') ?? null;
    c.set('caller', { keyId, principalId: null, role: 'agent' } satisfies Caller);
    await next();
  });
  app.use(rateLimit(options));
  app.all('*', (c) => c.json({ ok: true }));
  return async (method: string, path: string, keyId?: string) => {
    const response = await app.request(`http://127.0.0.1${path}`, {
      method,
      headers: keyId === undefined ? {} : { 'x-key': keyId },
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: await response.json(),
    };
  };
}

describe('rateLimit', () => {
  it('lets a key send its burst, then answers 429 rate_limited with Retry-After, each key on its own', async () => {
    const call = limitedApp({ perSecond: 0.5, burst: 3, paths: ['/mcp'] });
    for (let i = 0; i < 3; i++) expect((await call('POST', '/processes', 'k1')).status).toBe(200);
    const refused = await call('POST', '/processes', 'k1');
    expect(refused).toMatchObject({
      status: 429,
      retryAfter: '2',
      body: {
        code: 'rate_limited',
        reason: 'rate_limited',
        error: expect.stringContaining('0.5 requests a second'),
      },
    });
    // The same bucket covers re-runs and the MCP endpoint.
    expect((await call('POST', '/processes/7/signals/run', 'k1')).status).toBe(429);
    expect((await call('POST', '/mcp', 'k1')).status).toBe(429);
    // Reads are not limited, nor another key, nor the bootstrap key (no stored key id).
    expect((await call('GET', '/processes', 'k1')).status).toBe(200);
    expect((await call('GET', '/processes/7', 'k1')).status).toBe(200);
    expect((await call('POST', '/processes', 'k2')).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await call('POST', '/processes')).status).toBe(200);
  });

  it('is off at 0 requests a second', async () => {
    const call = limitedApp({ perSecond: 0, burst: 1 });
    for (let i = 0; i < 20; i++) expect((await call('POST', '/processes', 'k1')).status).toBe(200);
  });
});

describe('createRateLimiter', () => {
  it('refills at the rate, up to the burst, and keeps at most maxKeys buckets', () => {
    let now = 0;
    const limiter = createRateLimiter({ perSecond: 2, burst: 2, maxKeys: 2, now: () => now });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 1]);
    now += 500;
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 1]);
    // A long quiet spell refills the burst, never more.
    now += 60_000;
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 1]);
    // Past maxKeys the least recently used bucket goes (a fresh bucket is full).
    limiter.take('b');
    limiter.take('c');
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 0]);
  });
});
