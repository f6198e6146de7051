import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { cyrnelError, type OutboundPolicy } from '@cyrnel/sdk';
import { guardedLookup, RefusedConnection } from './guarded-lookup';

/** One outgoing request. */
export interface TransportRequest {
  /** Where the request goes; its host and origin also decide redirects and messages. */
  readonly url: URL;
  /**
   * The path and query sent as is (default: the URL's). `URL` removes dot segments, so a target built
   * from parameter values travels here instead (see `requestTarget`).
   */
  readonly target?: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  readonly timeoutMs: number;
  /** Aborts the request (and any redirect after it) when the caller no longer wants the answer. */
  readonly signal?: AbortSignal;
  /** Headers that carry credentials: dropped when a redirect leaves the origin. */
  readonly credentialHeaders?: readonly string[];
}

/** The raw response after redirects and content decoding. */
export interface TransportResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/** A keep-alive connection pool for one service. */
export interface HttpTransport {
  /** Send a request, following at most {@link MAX_REDIRECTS} redirects. */
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Close every pooled connection now, failing requests in flight (dehydrate, teardown). */
  close(): void;
  /**
   * Close once the requests in flight have finished (re-hydration: a config or secrets change must
   * not fail the calls already running on the old pool). Idle connections close at once. Resolves
   * when the pool is closed (by this or by `close`).
   */
  closeWhenIdle(): Promise<void>;
}

/** Redirects followed per request. */
export const MAX_REDIRECTS = 5;

/** The code of a body past {@link HttpTransportOptions.maxResponseBytes} (an own marker, not Node's). */
const TOO_LARGE = 'CYRNEL_ANSWER_TOO_LARGE';

/** Largest response body kept in memory (after decompression), like the host's 64 MiB body limit. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Options of {@link createHttpTransport}. */
export interface HttpTransportOptions {
  /** Response bodies beyond this many bytes fail the call (default {@link DEFAULT_MAX_RESPONSE_BYTES}). */
  readonly maxResponseBytes?: number;
  /**
   * Checked before every connection: the first request's and each redirect hop's (every address a
   * host name resolves to, inside the socket's DNS lookup; an IP-literal host directly). A refusal
   * fails the call and is never followed. Absent: nothing is checked (embedders, tests).
   */
  readonly outbound?: OutboundPolicy;
}

function decode(encoding: string | undefined, body: Buffer, maxOutputLength: number): Buffer {
  if (body.length === 0) return body;
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body, { maxOutputLength });
    case 'deflate':
      return inflateSync(body, { maxOutputLength });
    case 'br':
      return brotliDecompressSync(body, { maxOutputLength });
    default:
      return body;
  }
}

function lowerHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Create the per-service pool (node:http and node:https agents with keep-alive). */
export function createHttpTransport(options: HttpTransportOptions = {}): HttpTransport {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const { outbound } = options;
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  let inFlight = 0;
  let retiring = false;
  let closed: () => void = () => {};
  const whenClosed = new Promise<void>((resolve) => {
    closed = resolve;
  });

  function destroy(): void {
    agents.http.destroy();
    agents.https.destroy();
    closed();
  }

  function once(request: TransportRequest, signal: AbortSignal): Promise<TransportResponse> {
    const { url } = request;
    const secure = url.protocol === 'https:';
    const port = Number(url.port) || (secure ? 443 : 80);
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    const isLiteral = isIP(literal) !== 0;
    return new Promise((resolve, reject) => {
      if (outbound && isLiteral) {
        try {
          outbound.check(literal, port, url.hostname);
        } catch (refusal) {
          return reject(new RefusedConnection(refusal));
        }
      }
      const req = (secure ? https : http).request(
        url,
        {
          method: request.method.toUpperCase(),
          headers: request.headers,
          agent: secure ? agents.https : agents.http,
          signal,
          ...(request.target === undefined ? {} : { path: request.target }),
          ...(outbound && !isLiteral ? { lookup: guardedLookup(outbound, port) } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let received = 0;
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received <= maxBytes) return void chunks.push(chunk);
            reject(
              Object.assign(new Error(`response body larger than ${maxBytes} bytes`), { code: TOO_LARGE }),
            );
            req.destroy();
          });
          res.on('error', reject);
          // A connection cut mid-body (or aborted by the timeout) closes without 'end'.
          res.on('close', () => {
            if (!res.complete) reject(new Error('connection closed before the response was complete'));
          });
          res.on('end', () => {
            if (received > maxBytes) return;
            try {
              const headers = lowerHeaders(res.headers);
              resolve({
                status: res.statusCode ?? 0,
                headers,
                body: decode(headers['content-encoding'], Buffer.concat(chunks), maxBytes),
              });
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(request.body);
    });
  }

  return {
    async send(request) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), request.timeoutMs);
      // The caller's signal aborts the request too (a listener: `AbortSignal.any` is slow per call).
      const cancel = () => controller.abort(request.signal?.reason);
      if (request.signal?.aborted) cancel();
      else request.signal?.addEventListener('abort', cancel, { once: true });
      const signal = controller.signal;
      let current = request;
      let previousHost = '';
      inFlight++;
      try {
        for (let hop = 0; ; hop++) {
          const host = current.url.host;
          let response: TransportResponse;
          try {
            response = await once(current, signal);
          } catch (error) {
            if (error instanceof RefusedConnection) {
              const after = hop > 0 ? ` (after a redirect from ${previousHost})` : '';
              throw new Error(`${error.message}${after}`, { cause: error });
            }
            if (request.signal?.aborted) {
              throw new Error(
                `request to ${host} was cancelled: ${String(request.signal.reason?.message ?? request.signal.reason)}`,
                { cause: error },
              );
            }
            if (controller.signal.aborted) {
              throw new Error(`request to ${host} timed out after ${request.timeoutMs} ms`, { cause: error });
            }
            const code = (error as NodeJS.ErrnoException).code;
            // Past the answer budget (the body, or what it decompresses to): a reason of its own.
            if (code === TOO_LARGE || code === 'ERR_BUFFER_TOO_LARGE')
              throw cyrnelError(
                'upstream_answer_too_large',
                `request to ${host} failed: ${code === TOO_LARGE ? (error as Error).message : code}`,
                { cause: error },
              );
            const reason = code ?? (error as Error).message;
            throw new Error(`request to ${host} failed: ${reason}`, { cause: error });
          }
          const location = response.headers.location;
          if (![301, 302, 303, 307, 308].includes(response.status) || location === undefined) return response;
          if (hop >= MAX_REDIRECTS)
            throw new Error(`request to ${host} failed: more than ${MAX_REDIRECTS} redirects`);
          previousHost = host;
          current = redirect(current, response.status, new URL(location, current.url));
        }
      } finally {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', cancel);
        inFlight--;
        if (retiring && inFlight === 0) destroy();
      }
    },
    close: destroy,
    closeWhenIdle() {
      retiring = true;
      if (inFlight === 0) destroy();
      return whenClosed;
    },
  };
}

// Like fetch: 303 (and 301/302 after POST) become GET without a body; credentials never cross origins.
function redirect(previous: TransportRequest, status: number, url: URL): TransportRequest {
  const method = previous.method.toUpperCase();
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  const headers: Record<string, string> = { ...previous.headers };
  if (toGet) {
    delete headers['content-type'];
    delete headers['content-length'];
  }
  if (url.origin !== previous.url.origin) {
    for (const name of ['authorization', 'cookie', ...(previous.credentialHeaders ?? [])])
      delete headers[name];
  }
  const { target: _sentTarget, ...rest } = previous;
  return { ...rest, url, headers, method: toGet ? 'GET' : method, ...(toGet ? { body: undefined } : {}) };
}
