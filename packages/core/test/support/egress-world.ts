import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CatalogChange } from '@cyrnel/sdk';
import { createEgressFrameReader, encodeEgressFrame } from '@cyrnel/sdk/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { PreparedCall } from '../../src/direct-calls/prepared-call';
import { createEgressGateway, type EgressGateway } from '../../src/gateway/egress-gateway';
import type { AuditEvent } from '../../src/gateway/gateway-protocol';
import type { TracingOptions } from '../../src/telemetry/tracing';

/** The OpenTelemetry API the adapter records its span with (one global per thread, as any adapter's). */
const OTEL_API = pathToFileURL(createRequire(import.meta.url).resolve('@opentelemetry/api')).href;

// A portable adapter as a module file (the workers import it by URL): one HTTP request per call
// to `<baseUrl>/<toolId>`, with the service's secret as a header; `traced` records a span.
const ADAPTER = `
import otel from '${OTEL_API}';
export const probe = {
  instantiate() {
    const services = new Map();
    return {
      async setup() {},
      async teardown() {},
      async hydrateService(state) { services.set(state.id, state); },
      async dehydrateService(id) { services.delete(id); },
      async invoke({ serviceId, toolId, parameters, signal }) {
        if (toolId === 'traced') otel.trace.getTracer('probe').startSpan('probe traced').end();
        if (toolId === 'bomb') {
          const held = [];
          for (;;) held.push(new Array(100_000).fill(held.length));
        }
        const state = services.get(serviceId);
        const response = await fetch(state.config.baseUrl + '/' + toolId + '?n=' + (parameters.n ?? ''), {
          headers: { 'x-key': state.secrets.key },
          signal,
        });
        return { status: response.status, body: await response.json() };
      },
    };
  },
};
`;

/** A nested answer `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { v: value };
  return value;
}

export interface Answer {
  readonly header: { id: number; ok?: boolean; host?: true; unprepared?: true; error?: { reason: string } };
  readonly body: string;
}

/** A client of one worker socket, as a sandbox process would be (or a forger). */
export function client(path: string, token: string) {
  const socket: Socket = connect(path);
  const waiting = new Map<number, (answer: Answer) => void>();
  let next = 1;
  socket.write(encodeEgressFrame({ token }));
  socket.on(
    'data',
    createEgressFrameReader(
      1 << 30,
      (header, body) => {
        const answer = { header: header as Answer['header'], body: body.toString('utf8') };
        waiting.get(answer.header.id)?.(answer);
      },
      () => socket.destroy(),
    ),
  );
  // Calls still waiting when the connection goes down end without an answer of the gateway's.
  socket.on('close', () => {
    for (const [id, resolve] of waiting)
      resolve({ header: { id, error: { reason: 'connection_lost' } }, body: '' });
    waiting.clear();
  });
  socket.on('error', () => socket.destroy());
  return {
    call(eid: number, toolId: string, parameters: Record<string, unknown> = {}, serviceId = 'svc') {
      const id = next++;
      return new Promise<Answer>((resolve) => {
        waiting.set(id, resolve);
        socket.write(encodeEgressFrame({ id, eid, serviceId, toolId, parameters }));
      });
    },
    close: () => socket.destroy(),
  };
}

/** Whether something accepts connections on the Unix socket at `path`. */
export function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** How {@link EgressWorld.start} makes its gateway (each absent: the gateway's default). */
export interface EgressStart {
  readonly budget?: { maxBytes?: number; maxDepth?: number; maxElements?: number };
  readonly workerMemoryMb?: number;
  readonly idleTimeoutMs?: number;
  readonly tracing?: TracingOptions;
  readonly journalDir?: string;
}

/**
 * A real egress gateway's surroundings, for one test file: an upstream on loopback (its paths:
 * `/hold` never answers, `/guarded` refuses all but the refreshed secret with 401, `/big`, `/deep`
 * and `/wide` answer past small budgets, anything else echoes its path), a portable adapter module
 * calling it, and a host that prepares tool `svc/<toolId>` with the secret and flags set here.
 */
export interface EgressWorld {
  /** The upstream's base URL. */
  readonly baseUrl: string;
  /** The upstream's requests (path and `x-key`), in order; tests empty it as they need. */
  readonly hits: { path: string; key: string | undefined }[];
  /** `start <tool>` for each audited start and `hit <path>` for each request, interleaved. */
  readonly log: string[];
  /** Every audit event the gateway sent, in order. */
  readonly audits: { eid: number; event: AuditEvent }[];
  /** The service's secret the next preparation puts in (`first-secret` at first). */
  secret: string;
  /** Whether the host prepares the service's tools (a disabled service: none). */
  enabled: boolean;
  /** When set, the next preparation first makes a catalog change arrive (and clears the flag). */
  changeOnPrepare: boolean;
  /** A gateway of two workers on this world's host; closed after each test. Its audit allows eids under 1000. */
  start(options?: EgressStart): EgressGateway;
  /** A catalog change, as the host would send it (dropping the service while it is disabled). */
  change(): Promise<void>;
}

/** Set up an {@link EgressWorld} in the calling file's hooks. */
export function useEgressWorld(): EgressWorld {
  let dir = '';
  let upstream: Server;
  let listener: ((change: CatalogChange) => Promise<void>) | undefined;
  let revision = 1;
  let gateway: EgressGateway | undefined;

  const prepared = (toolId: string): PreparedCall => ({
    revision: `r${revision}`,
    adapter: {
      moduleUrl: pathToFileURL(join(dir, 'adapter.mjs')).href,
      exportName: 'probe',
      config: {},
      secrets: {},
      outbound: null,
      invokeMs: 30_000,
    },
    service: {
      id: 'svc',
      adapterDomain: {},
      config: { baseUrl: world.baseUrl },
      secrets: { key: world.secret },
    } as unknown as PreparedCall['service'],
    tool: {
      id: toolId,
      state: { adapterDomain: {} } as unknown as PreparedCall['tool']['state'],
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
    },
  });

  const world = {
    baseUrl: '',
    hits: [] as EgressWorld['hits'],
    log: [] as string[],
    audits: [] as EgressWorld['audits'],
    secret: 'first-secret',
    enabled: true,
    changeOnPrepare: false,
    start(options: EgressStart = {}): EgressGateway {
      gateway = createEgressGateway({
        host: {
          prepare: async (serviceId, toolId) => {
            if (world.changeOnPrepare) {
              // Another catalog change reaches the workers while this preparation is under way.
              world.changeOnPrepare = false;
              await world.change();
            }
            return serviceId === 'svc' && world.enabled && typeof toolId === 'string'
              ? prepared(toolId)
              : undefined;
          },
          onChange(next) {
            listener = next;
            return () => {
              listener = undefined;
            };
          },
        },
        workers: 2,
        ...options,
      });
      gateway.audit((eid, event) => {
        world.audits.push({ eid, event });
        if (event.kind === 'start') world.log.push(`start ${event.toolId}`);
        return eid < 1000;
      });
      return gateway;
    },
    async change(): Promise<void> {
      revision++;
      await listener?.({ revision: `r${revision}`, dropped: world.enabled ? [] : ['svc'] });
    },
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cyrnel-egress-core-'));
    writeFileSync(join(dir, 'adapter.mjs'), ADAPTER);
    upstream = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const key = request.headers['x-key'];
      world.hits.push({ path, key: typeof key === 'string' ? key : undefined });
      world.log.push(`hit ${path}`);
      const json = (body: unknown) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (path === '/hold') return;
      if (path === '/guarded' && key !== 'refreshed-secret')
        return response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"refused"}');
      if (path === '/big') return json({ text: 'x'.repeat(200_000) });
      if (path === '/deep') return json(nested(100));
      if (path === '/wide') return json(Array.from({ length: 20_000 }, (_, i) => i));
      json({ path });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    world.baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    world.secret = 'first-secret';
    world.enabled = true;
    world.changeOnPrepare = false;
  });
  afterAll(async () => {
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  return world;
}
