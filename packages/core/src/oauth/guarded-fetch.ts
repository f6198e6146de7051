import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { OutboundPolicy } from '@cyrnel/sdk';
import { guardedLookup } from '@cyrnel/sdk/node';
import { cyrnelError, isCyrnelError } from '../errors';
import { outboundRefusal, readBoundedBody } from '../outbound/bounded-body';
import { parseAddress } from '../outbound/cidr';

/** What {@link createGuardedFetch} takes. */
export interface GuardedFetchOptions {
  /** Decides every address and port a request may reach (the host's outbound policy). */
  readonly outbound: OutboundPolicy;
  /** Deadline of one request, answer included, in ms. */
  readonly timeoutMs: number;
  /** Largest answer body in bytes. */
  readonly maxBytes: number;
}

/** The `fetch` shape `oauth4webapi` calls through its `customFetch` option. */
export type GuardedFetch = (
  url: string,
  init: { method: string; headers: Record<string, string> | Headers; body?: unknown; signal?: AbortSignal },
) => Promise<Response>;

/**
 * A `fetch` for authorization servers that goes through the host's outbound policy: every address
 * a name resolves to is checked inside the socket's DNS lookup (an IP literal before connecting),
 * redirects are never followed (a 3xx is answered as it is, and the OAuth library refuses it), and
 * the answer is bounded in time and size. Failures are cyrnel errors: `outbound_refused` (403),
 * `upstream_failed` (502).
 *
 * @example
 * ```ts
 * const fetch = createGuardedFetch({ outbound, timeoutMs: 5000, maxBytes: 1 << 20 });
 * const jwks = createRemoteJWKSet(new URL(jwksUri), { [customFetch]: fetch }); // jose
 * ```
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  return async (text, init) => {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw cyrnelError('upstream_failed', `the authorization server's URL ${url.origin} is not http(s)`);
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const literal = parseAddress(url.hostname.replace(/^\[|\]$/g, ''));
    if (literal) {
      try {
        options.outbound.check(url.hostname.replace(/^\[|\]$/g, ''), port, url.hostname);
      } catch (refused) {
        throw outboundRefusal(refused);
      }
    }
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const signal = init.signal ? AbortSignal.any([deadline, init.signal]) : deadline;
    const body = bodyOf(init.body);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = send(
        url,
        {
          method: init.method,
          headers: {
            ...(init.headers instanceof Headers ? Object.fromEntries(init.headers) : init.headers),
            ...(body ? { 'content-length': String(body.length) } : {}),
          },
          agent: false,
          signal,
          ...(literal
            ? {}
            : {
                lookup: guardedLookup(options.outbound, port, {
                  refused: outboundRefusal,
                  unresolved: (hostname, error) =>
                    cyrnelError('upstream_failed', `could not resolve ${hostname}`, { cause: error }),
                }),
              }),
        },
        resolve,
      );
      request.on('error', (error) => reject(failure(error, url, signal, options.timeoutMs)));
      request.end(body);
    });
    const bytes = await readBoundedBody(
      response,
      options.maxBytes,
      () =>
        cyrnelError(
          'upstream_failed',
          `the answer of ${url.origin} is larger than ${options.maxBytes} bytes`,
        ),
      (error) => failure(error, url, signal, options.timeoutMs),
    );
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.set(name, value);
    }
    const status = response.statusCode ?? 502;
    const nullBody = status === 204 || status === 205 || status === 304;
    return new Response(nullBody ? null : new Uint8Array(bytes), { status, headers });
  };
}

function bodyOf(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw cyrnelError('upstream_failed', 'unsupported request body for an authorization server');
}

function failure(error: unknown, url: URL, signal: AbortSignal, timeoutMs: number): Error {
  if (isCyrnelError(error)) return error;
  if (signal.aborted && signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError')
    return cyrnelError('upstream_failed', `${url.origin} did not answer within ${timeoutMs} ms`);
  const message = error instanceof Error ? error.message : String(error);
  return cyrnelError('upstream_failed', `request to ${url.origin} failed: ${message}`, { cause: error });
}
