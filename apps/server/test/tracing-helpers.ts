import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { apiClient } from './helpers';
import { decodeOtlpProtobuf } from './otlp-protobuf';
import { shopSpec, UPSTREAM_KEY } from './shop-upstream';

/** One span as an OTLP/HTTP export carries it, flattened. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  readonly events: { readonly name: string; readonly attributes: Record<string, unknown> }[];
  readonly status: { readonly code?: number; readonly message?: string };
  readonly scope: string;
  readonly resource: Record<string, unknown>;
}

/** A collector on 127.0.0.1 that takes OTLP/HTTP exports (protobuf or JSON) and keeps their spans. */
export interface OtlpReceiver {
  /** Its base URL (`--otel` appends `/v1/traces`). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /**
   * Every export received, as JSON text (a protobuf one decoded into the JSON encoding's shape), to
   * look for what must never be exported.
   */
  readonly bodies: string[];
  /** The content type of every export received, in order. */
  readonly contentTypes: string[];
  /** Resolves with the spans once `done` holds for them (polling what arrived). */
  until<T>(done: (spans: readonly ReceivedSpan[]) => T | undefined, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

function anyValue(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(anyValue);
  return undefined;
}

function attributesOf(list: { key: string; value?: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, anyValue(value)]));
}

/** The spans of an `ExportTraceServiceRequest` in its JSON encoding (ids in hex). */
export function decodeOtlpJson(body: unknown): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  type Json = Record<string, unknown>;
  for (const resourceSpans of ((body as Json).resourceSpans as Json[] | undefined) ?? []) {
    const resource = attributesOf((resourceSpans.resource as Json | undefined)?.attributes as never);
    for (const scopeSpans of (resourceSpans.scopeSpans as Json[] | undefined) ?? []) {
      const scope = String((scopeSpans.scope as Json | undefined)?.name ?? '');
      for (const span of (scopeSpans.spans as Json[] | undefined) ?? []) {
        spans.push({
          traceId: String(span.traceId ?? ''),
          spanId: String(span.spanId ?? ''),
          parentSpanId: String(span.parentSpanId ?? ''),
          name: String(span.name),
          kind: Number(span.kind),
          attributes: attributesOf(span.attributes as never),
          events: ((span.events as Json[] | undefined) ?? []).map((event) => ({
            name: String(event.name),
            attributes: attributesOf(event.attributes as never),
          })),
          status: (span.status as ReceivedSpan['status'] | undefined) ?? {},
          scope,
          resource,
        });
      }
    }
  }
  return spans;
}

/** Start an OTLP/HTTP receiver on a free port of 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = request.headers['content-type'] ?? '';
      const protobuf = type === 'application/x-protobuf';
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !(protobuf || type.includes('json'))) {
        response.writeHead(415).end();
        return;
      }
      contentTypes.push(type);
      const decoded = protobuf ? decodeOtlpProtobuf(body) : JSON.parse(body.toString('utf8'));
      bodies.push(protobuf ? JSON.stringify(decoded) : body.toString('utf8'));
      spans.push(...decodeOtlpJson(decoded));
      // What a collector answers each encoding with: an empty ExportTraceServiceResponse.
      if (protobuf) response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    bodies,
    contentTypes,
    async until(done, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = done(spans);
        if (found !== undefined) return found;
        if (Date.now() > deadline)
          throw new Error(
            `the collector did not receive the expected spans; it has: ${spans.map((span) => span.name).join(', ')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The shop API of `shopSpec` (`GET /users/{id}`), keeping the headers each request came with. */
export interface TracedUpstream {
  readonly url: string;
  /** The headers of every request, by path. */
  readonly received: { readonly path: string; readonly headers: IncomingHttpHeaders }[];
  /** The shop's definition pointing here. */
  spec(): Record<string, unknown>;
  /** Install it as service `shop`, enabled, with its key, through `api` (an admin's client). */
  install(api: ReturnType<typeof apiClient>): Promise<void>;
  close(): Promise<void>;
}

/** Start the shop's `GET /users/{id}` on 127.0.0.1, answering `{ id, name: "user-<id>" }` to its key. */
export async function startTracedUpstream(): Promise<TracedUpstream> {
  const received: TracedUpstream['received'] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    received.push({ path, headers: request.headers });
    const user = /^\/users\/(\d+)$/.exec(path);
    if (request.headers['x-api-key'] !== UPSTREAM_KEY || !user) {
      response.writeHead(request.headers['x-api-key'] === UPSTREAM_KEY ? 404 : 401).end('{}');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ id: Number(user[1]), name: `user-${user[1]}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    spec: () => shopSpec(url),
    async install(api) {
      const installed = await api('POST', '/services', {
        id: 'shop',
        adapter: 'openapi',
        definition: JSON.stringify(shopSpec(url)),
        secrets: { shopKey: UPSTREAM_KEY },
        enabled: true,
      });
      expect(installed.status, installed.text).toBe(201);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A W3C `traceparent` of a fresh caller's span: its trace id, span id and header. */
export function callerTrace(): { traceId: string; spanId: string; traceparent: string } {
  const hex = (bytes: number) =>
    Array.from({ length: bytes }, () =>
      Math.floor(Math.random() * 256)
        .toString(16)
        .padStart(2, '0'),
    ).join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The one span of `spans` in `traceId` named `name` (undefined until it arrived). */
export function spanNamed(
  spans: readonly ReceivedSpan[],
  traceId: string,
  name: string,
): ReceivedSpan | undefined {
  return spans.find((span) => span.traceId === traceId && span.name === name);
}
