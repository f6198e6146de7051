import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { OutboundPolicy } from '@cyrnel/sdk';
import { guardedLookup as sharedLookup } from '@cyrnel/sdk/node';
import { type CyrnelError, cyrnelError, isCyrnelError } from '../errors';
import { outboundRefusal, readBoundedBody } from '../outbound/bounded-body';
import { parseAddress } from '../outbound/cidr';

/** Options of {@link downloadDefinition}. */
export interface DownloadDefinitionOptions {
  /**
   * Decides which address and port each connection may reach, e.g. `createOutboundPolicy`: the
   * private-address guard plus, given the server's own endpoint, never
   * cyrnel's own API.
   */
  outbound: OutboundPolicy;
  /** Largest accepted body in bytes (413 beyond). */
  maxBytes: number;
  /** Whole-download deadline (504 beyond). Default 30000. */
  timeoutMs?: number;
  /** Redirects followed, each hop re-checked. Default 5. */
  maxRedirects?: number;
  /** Aborts the download, e.g. when the client leaves. */
  signal?: AbortSignal;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Download a service definition for install/update by URL: http(s) only, every
 * resolved address and every redirect hop checked by the outbound policy (403 `forbidden`), the
 * connection pinned to the checked addresses (the policy runs inside the socket's DNS lookup, so
 * a rebinding answer cannot slip in between check and connect).
 *
 * @example
 * ```ts
 * const outbound = createOutboundPolicy({ ownEndpoint: () => ({ address: '127.0.0.1', port: 9371 }) });
 * const text = await downloadDefinition('https://example.com/openapi.json', { outbound, maxBytes: 1 << 20 });
 * ```
 */
export async function downloadDefinition(url: string, options: DownloadDefinitionOptions): Promise<string> {
  const { bytes, url: finalUrl } = await downloadBytes(url, options);
  const text = bytes.toString('utf8');
  if (text.trim() === '')
    throw cyrnelError('invalid_definition', `download of ${finalUrl} returned an empty definition`);
  return text;
}

/**
 * What a download may take where its options leave it out: the size of the largest real
 * descriptions with room to spare, and a deadline a slow registry meets.
 */
export const DEFAULT_DOWNLOAD_LIMITS = Object.freeze({
  /** Largest download in bytes (413 beyond). */
  maxBytes: 64 * 1024 * 1024,
  /** Deadline of one download, redirects included, in ms (504 beyond). */
  timeoutMs: 30_000,
});

/** The npm registry modules are installed from where the host options name none. */
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';

/**
 * Download any resource (a definition, registry metadata, a module archive) under the same rules
 * as {@link downloadDefinition}: answers the bytes and the URL they came from after redirects.
 *
 * @example
 * ```ts
 * const { bytes } = await downloadBytes('https://registry.example.com/m-1.0.0.tgz', { outbound, maxBytes: 32 << 20 });
 * ```
 */
export async function downloadBytes(
  url: string,
  options: DownloadDefinitionOptions & {
    readonly accept?: string;
    /** The error a 404 answer becomes (default: 502 `upstream_failed` like any other non-2xx). */
    readonly notFound?: () => Error;
  },
): Promise<{ bytes: Buffer; url: string }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DOWNLOAD_LIMITS.timeoutMs;
  const maxRedirects = options.maxRedirects ?? 5;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let target = parseUrl(url);
  for (let hop = 0; ; hop++) {
    const response = await fetchOnce(target, options.outbound, signal, timeoutMs, options.accept);
    const location = response.headers.location;
    if (response.statusCode !== undefined && REDIRECTS.has(response.statusCode) && location) {
      response.destroy();
      if (hop >= maxRedirects)
        throw cyrnelError(
          'upstream_failed',
          `download of ${url} failed: more than ${maxRedirects} redirects`,
        );
      target = parseUrl(new URL(location, target).href);
      continue;
    }
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      response.destroy();
      if (status === 404 && options.notFound) throw options.notFound();
      throw cyrnelError(
        'upstream_failed',
        `download of ${target.href} failed: the server answered ${status}`,
      );
    }
    const bytes = await readBoundedBody(
      response,
      options.maxBytes,
      () => tooLarge(options.maxBytes),
      (error) => translate(error, target, signal, timeoutMs),
    );
    return { bytes, url: target.href };
  }
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw cyrnelError('invalid_request', 'url is not a valid URL', {
      details: [{ path: 'url', message: 'not a valid URL' }],
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw cyrnelError('invalid_request', 'url must be http or https', {
      details: [{ path: 'url', message: 'must be http or https' }],
    });
  }
  return url;
}

/** The SDK's guarded lookup, failing with this module's errors (403 refused, 502 unresolved). */
function guardedLookup(outbound: OutboundPolicy, port: number): LookupFunction {
  return sharedLookup(outbound, port, {
    refused: outboundRefusal,
    unresolved: (hostname, error) =>
      cyrnelError('upstream_failed', `could not resolve ${hostname}`, { cause: error }),
  });
}

function fetchOnce(
  url: URL,
  outbound: OutboundPolicy,
  signal: AbortSignal,
  timeoutMs: number,
  accept = 'application/json, application/yaml, text/yaml, text/plain, */*',
): Promise<IncomingMessage> {
  const literal = parseAddress(url.hostname);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  if (literal) {
    try {
      outbound.check(url.hostname.replace(/^\[|\]$/g, ''), port, url.hostname);
    } catch (refused) {
      return Promise.reject(outboundRefusal(refused));
    }
  }
  const requestOptions: RequestOptions = {
    method: 'GET',
    headers: { accept },
    agent: false,
    signal,
    ...(literal ? {} : { lookup: guardedLookup(outbound, port) }),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, requestOptions, resolve);
    request.on('error', (error) => reject(translate(error, url, signal, timeoutMs)));
    request.end();
  });
}

function tooLarge(maxBytes: number): CyrnelError {
  return cyrnelError('payload_too_large', `the download is larger than ${maxBytes} bytes`);
}

function translate(error: unknown, url: URL, signal: AbortSignal, timeoutMs: number): Error {
  if (isCyrnelError(error)) return error;
  if (signal.aborted && signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError') {
    return cyrnelError('download_timeout', `download of ${url.href} timed out after ${timeoutMs} ms`);
  }
  if (signal.aborted) return cyrnelError('upstream_failed', `download of ${url.href} was aborted`);
  const message = error instanceof Error ? error.message : String(error);
  return cyrnelError('upstream_failed', `download from ${url.host} failed: ${message}`, {
    cause: error,
  });
}
