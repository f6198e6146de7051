import { type CyrnelHost, cyrnelError, type DownloadDefinitionOptions } from '@cyrnel/core';
import type { OutboundPolicy } from '@cyrnel/sdk';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv, HttpLogger } from '../app-env';
import { readJsonBody } from '../validation/read-json-body';
import type { EventStreamBudget } from './event-stream-budget';

/** What every route group needs: the host, resolved options and a body reader. */
export interface RouteContext {
  /** The core host the routes call. */
  readonly host: CyrnelHost;
  /** Access and failure logger. */
  readonly logger: HttpLogger;
  /** Largest request body in bytes. */
  readonly maxBodyBytes: number;
  /** Deepest nesting of arrays and objects a JSON body may have. */
  readonly maxJsonDepth: number;
  /** Most arrays, objects and values a JSON body may have. */
  readonly maxJsonElements: number;
  /** Largest downloaded definition in bytes. */
  readonly maxDefinitionBytes: number;
  /** Definition download deadline. */
  readonly downloadTimeoutMs: number;
  /** Where definition downloads may connect (private-address guard, cyrnel's own API). */
  readonly outbound: OutboundPolicy;
  /** Extra time `wait:true` gives a process beyond its own timeout. */
  readonly waitMarginMs: number;
  /** Interval of SSE heartbeat comments. */
  readonly heartbeatMs: number;
  /** JSON text one events stream may hold unsent before it is dropped. */
  readonly maxEventQueueBytes: number;
  /** Most event streams open at once (429 beyond). */
  readonly maxEventStreams: number;
  /** JSON text all event streams together may hold unsent. */
  readonly maxEventBufferBytes: number;
  /** The open streams and queued bytes all event streams share. */
  readonly eventStreams: EventStreamBudget;
  /** Read the request's JSON body under the size limit (413 beyond `maxBodyBytes`). */
  body(c: Context<AppEnv>, emptyAs?: unknown): Promise<unknown>;
  /** How `services.install` and `update` download a definition for this request: aborted when the client leaves. */
  download(c: Context<AppEnv>): DownloadDefinitionOptions;
}

/** Build the shared {@link RouteContext}. */
export function createRouteContext(fields: Omit<RouteContext, 'body' | 'download'>): RouteContext {
  const tooLarge = () =>
    cyrnelError('payload_too_large', `the request body is larger than ${fields.maxBodyBytes} bytes`);
  // Hono's limit cuts a chunked body off at the limit. It is applied where a route reads its
  // body, so a route that takes none (or none exists: 404) answers as it would without one.
  const limit = bodyLimit({
    maxSize: fields.maxBodyBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  return {
    ...fields,
    body: async (c, emptyAs) => {
      // A declared length beyond the limit is refused before the body is touched: `bodyLimit`
      // opens `c.req.raw.body` first, which on @hono/node-server starts consuming the upload, and
      // the kept-alive connection then fails the client's next request (seen in apps/server).
      const declared = c.req.header('content-length');
      if (Number(declared) > fields.maxBodyBytes) throw tooLarge();
      // A body of a declared length is bounded by it (node:http ends the body there), so `bodyLimit`
      // is only for a chunked one: it would open `body` as a web stream, a slower read.
      if (declared === undefined || c.req.header('transfer-encoding') !== undefined)
        await limit(c, async () => {});
      return readJsonBody(c.req.raw, {
        maxDepth: fields.maxJsonDepth,
        maxElements: fields.maxJsonElements,
        ...(emptyAs === undefined ? {} : { emptyAs }),
      });
    },
    download: (c) => ({
      outbound: fields.outbound,
      maxBytes: fields.maxDefinitionBytes,
      timeoutMs: fields.downloadTimeoutMs,
      signal: c.req.raw.signal,
    }),
  };
}
