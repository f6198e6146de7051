import type { RequestId } from '@modelcontextprotocol/server';

/** One request being served, cancellable through its own signal. */
export interface TrackedRequest {
  /** The request to serve instead: the same, with a signal that also aborts on cancellation. */
  readonly request: Request;
  /** The response, passed through; the request stops being tracked once its body ends. */
  through(response: Response): Response;
  /** Stop tracking (the request failed before a response). */
  done(): void;
}

/** Requests in flight by caller and JSON-RPC id, so a `notifications/cancelled` can reach one. */
export interface HttpCancellations {
  /** Track a request of `caller` with JSON-RPC id `id` while it is served. */
  track(caller: string, id: RequestId, request: Request): TrackedRequest;
  /**
   * Cancel the request of `caller` with JSON-RPC id `requestId`: true when exactly one is in flight.
   * Two in flight with that id (two clients of one key) are left alone: which one the client
   * meant cannot be told, and cancelling the other would end a run nobody cancelled.
   */
  cancel(caller: string, requestId: unknown): boolean;
}

/** `3` and `"3"` are different JSON-RPC ids. */
const idKey = (id: unknown): string | undefined =>
  typeof id === 'number' || typeof id === 'string' ? `${typeof id}:${id}` : undefined;

/**
 * The requests in flight of a stateless endpoint. A 2025-era client cancels a request by POSTing
 * `notifications/cancelled` on its own, to an instance that never saw the request (the 1.x SDK
 * does this when a call is aborted, and keeps the first request open): matched here by the
 * caller (never another's) and the id, the request's signal aborts, and the server instance
 * serving it ends the wait and kills the run.
 *
 * @example
 * ```ts
 * const tracked = cancellations.track(callerKey, body.id, request);
 * const response = await serve(tracked.request);
 * return tracked.through(response);
 * // elsewhere, on notifications/cancelled from the same caller:
 * cancellations.cancel(callerKey, params.requestId);
 * ```
 */
export function createHttpCancellations(): HttpCancellations {
  const inflight = new Map<string, Set<AbortController>>();
  const track = (caller: string, id: RequestId, request: Request): TrackedRequest => {
    const key = `${caller}\u0000${idKey(id)}`;
    const controller = new AbortController();
    const onClientGone = () => controller.abort(request.signal.reason);
    if (request.signal.aborted) controller.abort(request.signal.reason);
    else request.signal.addEventListener('abort', onClientGone, { once: true });
    const entries = inflight.get(key) ?? new Set();
    entries.add(controller);
    inflight.set(key, entries);
    let tracking = true;
    const done = () => {
      if (!tracking) return;
      tracking = false;
      request.signal.removeEventListener('abort', onClientGone);
      entries.delete(controller);
      if (entries.size === 0 && inflight.get(key) === entries) inflight.delete(key);
    };
    // The body was handed over parsed: the copy carries no body, only the signal is new.
    const copy = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      signal: controller.signal,
    });
    return { request: copy, done, through: (response) => untilBodyEnds(response, done) };
  };
  return {
    track,
    cancel(caller, requestId) {
      const key = idKey(requestId);
      const entries = key === undefined ? undefined : inflight.get(`${caller}\u0000${key}`);
      if (entries?.size !== 1) return false;
      const [controller] = entries;
      controller?.abort(new Error('cancelled by the client'));
      return true;
    },
  };
}

/** `response`, calling `done` once its body has been read to the end or dropped. */
function untilBodyEnds(response: Response, done: () => void): Response {
  if (response.body === null) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: ended, value } = await reader.read();
        if (ended) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason).catch(() => undefined);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
