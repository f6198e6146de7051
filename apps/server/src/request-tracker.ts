import { randomUUID } from 'node:crypto';
import { REQUEST_ID_HEADER } from '@cyrnel/http';
import type { ErrorBody } from '@cyrnel/sdk/api';

/** A fetch handler as `@hono/node-server` calls it. */
export type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>;

/** Counts the requests whose handler has not finished, so shutdown can wait for them. */
export interface RequestTracker {
  /** Wraps the app's handler: counts each request; once draining, answers 503 instead. */
  readonly fetch: FetchHandler;
  /** Requests being handled now. */
  pending(): number;
  /** Refuse requests from now on (503 `unavailable`, `Connection: close`), e.g. on a kept-alive connection. */
  startDraining(): void;
  /** Resolves true once no request is pending, false when `timeoutMs` passes first. */
  drained(timeoutMs: number): Promise<boolean>;
}

/**
 * Track requests in flight. A handler counts until its response is returned: for a streamed
 * body (SSE) that is when the stream opens, which is enough because a stream no longer reads
 * the database.
 */
export function createRequestTracker(handler: FetchHandler): RequestTracker {
  let pending = 0;
  let draining = false;
  const waiters = new Set<() => void>();
  const finished = () => {
    pending--;
    if (pending > 0) return;
    for (const wake of waiters) wake();
    waiters.clear();
  };
  return {
    fetch: async (request, env) => {
      if (draining) {
        const body: ErrorBody = {
          error: 'the server is shutting down',
          code: 'unavailable',
          reason: 'shutting_down',
        };
        return Response.json(body, {
          status: 503,
          headers: { connection: 'close', [REQUEST_ID_HEADER]: randomUUID() },
        });
      }
      pending++;
      try {
        return await handler(request, env);
      } finally {
        finished();
      }
    },
    pending: () => pending,
    startDraining: () => {
      draining = true;
    },
    drained: (timeoutMs) => {
      if (pending === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          resolve(false);
        }, timeoutMs);
        waiters.add(wake);
      });
    },
  };
}
