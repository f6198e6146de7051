import type { ErrorBody, RouteMethod } from '@cyrnel/sdk/api';
import { CyrnelHttpError, CyrnelNetworkError, CyrnelTimeoutError } from './errors';
import { type QueryValues, queryString } from './query-string';
import type { RequestOptions } from './request-options';

/** Options of {@link createTransport}; the same as the client's. */
export interface TransportOptions {
  /** Server root, e.g. `http://127.0.0.1:9371` (a path prefix is kept). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** A fetch implementation; default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Deadline of every call in milliseconds (`0`: none). Default 30000. */
  timeoutMs?: number;
}

/** One HTTP call. */
export interface TransportRequest {
  /** HTTP method, one of the route table's (`GET`, `POST`, `PUT`, `PATCH`, `DELETE`). */
  method: RouteMethod;
  /** Path below the base URL, already encoded. */
  path: string;
  /** Query parameters. */
  query?: QueryValues | undefined;
  /** JSON body. */
  body?: unknown;
  /** Signal and deadline. */
  options?: RequestOptions | undefined;
}

/** An open streaming response; `close()` must be called once the caller is done with it. */
export interface OpenStream {
  /** The response body. */
  body: ReadableStream<Uint8Array>;
  /** Cancel the connection and drop the abort wiring. */
  close(): void;
}

/** The HTTP layer of the client: deadlines, abort, auth and the error envelope in one place. */
export interface Transport {
  /** A JSON response, parsed. */
  json<T>(request: TransportRequest): Promise<T>;
  /** A text response (Markdown, code, stdout). */
  text(request: TransportRequest): Promise<string>;
  /** A response without a body (204). */
  empty(request: TransportRequest): Promise<void>;
  /** A streaming GET; the deadline covers only the wait for the response headers. */
  stream(request: TransportRequest): Promise<OpenStream>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Build the transport the resource groups share. */
export function createTransport(options: TransportOptions): Transport {
  const base = options.baseUrl.replace(/\/+$/, '');
  // Browsers refuse a fetch called with another `this` ("Illegal invocation").
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const baseHeaders: Record<string, string> = {};
  if (options.apiKey !== undefined && options.apiKey !== '') {
    baseHeaders.authorization = `Bearer ${options.apiKey}`;
  }

  async function send<T>(
    request: TransportRequest,
    accept: string,
    read: (response: Response) => Promise<T>,
    streaming = false,
  ): Promise<T> {
    const { method, path, body, options: call = {} } = request;
    const what = `${method} ${path}`;
    call.signal?.throwIfAborted();
    const controller = new AbortController();
    const onAbort = () => controller.abort(call.signal?.reason);
    call.signal?.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = call.timeoutMs ?? defaultTimeout;
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(new CyrnelTimeoutError(timeoutMs, what));
          }, timeoutMs)
        : undefined;
    const release = () => {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onAbort);
    };
    const headers: Record<string, string> = { ...baseHeaders, accept };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (call.trace) {
      headers.traceparent = call.trace.traceparent;
      if (call.trace.tracestate) headers.tracestate = call.trace.tracestate;
    }
    try {
      const response = await fetchImpl(base + path + queryString(request.query), {
        method,
        headers,
        signal: controller.signal,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!response.ok) throw await errorFrom(response, what);
      if (streaming) clearTimeout(timer);
      const result = await read(response);
      if (!streaming) release();
      return result;
    } catch (error) {
      release();
      if (timedOut) throw new CyrnelTimeoutError(timeoutMs, what);
      if (call.signal?.aborted) throw call.signal.reason;
      if (error instanceof CyrnelHttpError) throw error;
      throw new CyrnelNetworkError(`${what} failed: ${describe(error)}`, { cause: error });
    }

    function describe(error: unknown): string {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      return error instanceof Error ? error.message + cause : String(error);
    }
  }

  return {
    json: (request) =>
      send(request, 'application/json', async (response) => {
        const text = await response.text();
        try {
          return JSON.parse(text);
        } catch {
          throw new CyrnelHttpError(response.status, undefined, `${request.path}: the response is not JSON`);
        }
      }),
    text: (request) => send(request, 'text/plain, text/markdown', (response) => response.text()),
    empty: (request) =>
      send(request, 'application/json', async (response) => {
        await response.body?.cancel();
      }),
    stream: (request) => {
      const controller = new AbortController();
      const signal = request.options?.signal
        ? AbortSignal.any([request.options.signal, controller.signal])
        : controller.signal;
      return send(
        { ...request, options: { ...request.options, signal } },
        'text/event-stream',
        async (response) => {
          if (response.body === null) throw new CyrnelNetworkError(`${request.path}: empty stream`);
          return { body: response.body, close: () => controller.abort() };
        },
        true,
      );
    },
  };
}

async function errorFrom(response: Response, what: string): Promise<CyrnelHttpError> {
  const text = await response.text().catch(() => '');
  let body: Partial<ErrorBody> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') body = parsed as Partial<ErrorBody>;
  } catch {
    // Not the cyrnel envelope (a proxy's HTML page, say): status and a generic message.
  }
  return new CyrnelHttpError(response.status, body, `${what} answered ${response.status}`);
}
