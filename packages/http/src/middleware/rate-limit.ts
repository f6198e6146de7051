import { type ErrorBody, listRoutes } from '@cyrnel/sdk/api';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { isWithin } from '../route-groups';
import { pattern } from './role-guard';

/** A request rate: a token bucket per key. */
export interface RateLimit {
  /** Requests per second a key may sustain; 0 turns the limit off. */
  readonly perSecond: number;
  /** Requests a key may send at once after a quiet spell (the bucket's size); at least 1. */
  readonly burst: number;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions extends RateLimit {
  /**
   * Buckets kept at most; the least recently used goes first (it would have refilled by then, or
   * its key is one of more keys than this sending at once). Default 10,000.
   */
  readonly maxKeys?: number;
  /** Clock in milliseconds, for tests. */
  readonly now?: () => number;
}

/** Token buckets per key in this process's memory. */
export interface RateLimiter {
  /** Take one request of `key`: 0 when allowed, else the whole seconds until one would be. */
  take(key: string): number;
}

/**
 * Token buckets per key: each key may send `burst` requests at once and `perSecond` on average.
 * They live in this process's memory, so with several hosts behind a load balancer each host
 * limits on its own (a key may reach hosts × the rate).
 *
 * @example
 * ```ts
 * const limiter = createRateLimiter({ perSecond: 10, burst: 20 });
 * const wait = limiter.take('key-1'); // 0: go; else retry after `wait` seconds
 * ```
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { perSecond } = options;
  const burst = Math.max(1, options.burst);
  const maxKeys = options.maxKeys ?? 10_000;
  const now = options.now ?? (() => performance.now());
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key) {
      if (perSecond <= 0) return 0;
      const at = now();
      const bucket = buckets.get(key) ?? { tokens: burst, at };
      bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * perSecond);
      bucket.at = at;
      // Most recently used last: the first one is the one to drop.
      buckets.delete(key);
      buckets.set(key, bucket);
      if (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value as string);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
    },
  };
}

/** Options of {@link rateLimit}. */
export interface RateLimitOptions extends RateLimiterOptions {
  /** Paths limited with every method, each with everything below it (route groups such as `/mcp`). */
  readonly paths?: readonly string[];
}

/**
 * Limit each stored key's requests to the routes of `API_ROUTES` that list `rate_limited` (those
 * that start runs) and to `paths`, answering 429 `rate_limited` with `Retry-After` in seconds.
 * The bootstrap key and a server without keys (the operator) are not limited. Runs after
 * `bearerAuth`, which sets the caller.
 *
 * @example
 * ```ts
 * app.use(rateLimit({ perSecond: 20, burst: 100, paths: ['/mcp'] }));
 * ```
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const limiter = createRateLimiter(options);
  const limited = listRoutes()
    .filter(({ route }) => (route.reasons as readonly string[]).includes('rate_limited'))
    .map(({ route }) => ({ method: route.method, regex: pattern(route.path) }));
  const paths = options.paths ?? [];
  const applies = (method: string, path: string) =>
    paths.some((prefix) => isWithin(path, prefix)) ||
    limited.some((route) => route.method === method && route.regex.test(path));
  return async (c, next) => {
    const { keyId } = c.get('caller');
    if (options.perSecond <= 0 || keyId === null || !applies(c.req.method, c.req.path)) return next();
    const retryAfter = limiter.take(keyId);
    if (retryAfter === 0) return next();
    const body: ErrorBody = {
      error: `this key sent more than ${options.perSecond} requests a second (bursts of ${Math.max(1, options.burst)}) to the routes that start runs; retry after ${retryAfter} s`,
      code: 'rate_limited',
      reason: 'rate_limited',
    };
    return c.json(body, 429, { 'Retry-After': String(retryAfter) });
  };
}
