import {
  type CyrnelHost,
  createOutboundPolicy,
  cyrnelError,
  DEFAULT_DOWNLOAD_LIMITS,
  type KeyRing,
  type Redactor,
} from '@cyrnel/core';
import { MAX_JSON_DEPTH, type OutboundPolicy } from '@cyrnel/sdk';
import type { ErrorBody } from '@cyrnel/sdk/api';
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { version as HTTP_VERSION } from '../package.json';
import type { AppEnv, HttpLogger } from './app-env';
import { errorResponse } from './error-response';
import { accessLog } from './middleware/access-log';
import { bearerAuth, type OAuthBearerOptions } from './middleware/bearer-auth';
import { crossSiteGuard } from './middleware/cross-site-guard';
import { groupCors } from './middleware/group-cors';
import { hostAllowList } from './middleware/host-allow-list';
import { jsonContentType } from './middleware/json-content-type';
import { createKeyStreams } from './middleware/key-streams';
import { type RateLimit, rateLimit } from './middleware/rate-limit';
import { requestId } from './middleware/request-id';
import { requestTrace } from './middleware/request-trace';
import { roleGuard } from './middleware/role-guard';
import { openApiDocument } from './openapi';
import type { LogSource, MetricsSource, RequestObservation } from './operations';
import { checkRouteGroups, groupPaths, isWithin, type RouteGroup } from './route-groups';
import { apiHandlers } from './routes/api-handlers';
import { createEventStreamBudget } from './routes/event-stream-budget';
import { mountRoutes } from './routes/mount-routes';
import { createRouteContext } from './routes/route-context';

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  /**
   * The bootstrap admin key: when set, every route but `/health` needs `Authorization: Bearer <key>`
   * with it or with a stored key.
   */
  apiKey?: string;
  /**
   * Stored keys with roles (`admin`, `agent`), managed on `/keys`. Once one is stored, every route
   * but `/health` needs a key. Without `apiKey` and without stored keys the API is open. Without
   * `apiKey`, the API keeps an admin among them: the first key stored must be an admin key (409
   * `first_key_not_admin`) and the last admin key cannot be deleted (409 `last_admin`). With
   * `apiKey`, that key is the admin whatever is stored, and neither is refused.
   */
  keys?: KeyRing;
  /**
   * The URL clients reach the API at (`https://cyrnel.example.com` behind a proxy), named in the
   * `servers` of `GET /openapi.json`. Default: the scheme and `Host` each request reached the
   * server with (a plain host[:port] only, else `/`).
   */
  publicUrl?: string;
  /**
   * Where `GET /` (and `HEAD /`) leads, with a 302 and no key needed: the server sets `/ui/` when
   * it serves the admin UI, so a browser opening the server's address lands on the UI. Default:
   * none, `/` is a 404 like any unknown path.
   */
  rootRedirect?: string;
  /**
   * How often the stored keys holding open streams (`/processes/:id/events`, `/mcp`) are looked
   * up again, so a key deleted on another host sharing the database closes its streams here too
   * (on this app, deleting a key closes them at once). Default 5000.
   */
  keyCheckMs?: number;
  /** Access logs and failures; silent by default. */
  logger?: HttpLogger;
  /**
   * Removes secrets from the message and details of every error answered (the host's redactor,
   * `createRedactor` of `@cyrnel/core`: an adapter's error may quote its token). Default: none.
   */
  redactor?: Redactor;
  /**
   * DNS names accepted in the `Host` header besides IP literals, `localhost` and `*.localhost`
   * (403 otherwise, against DNS rebinding): exact names, `.example.com` for a domain and its
   * subdomains, `*` for any. Default none.
   */
  allowedHosts?: readonly string[];
  /**
   * Browser origins (`https://app.example.com`, `*` for any) allowed to send state-changing
   * requests from another site. Default none.
   */
  allowedOrigins?: readonly string[];
  /** Largest request body in bytes (413 beyond). Default 64 MiB. */
  maxBodyBytes?: number;
  /**
   * Deepest nesting of arrays and objects a JSON request body may have (400 beyond). Default
   * `MAX_JSON_DEPTH` of `@cyrnel/sdk` (64): far above any config, secrets, patch or `envConfig` a
   * client needs, far below what would make a recursive reader of the value overflow its stack.
   */
  maxJsonDepth?: number;
  /**
   * Most elements (arrays, objects, and values after a comma) a JSON body may have (400 beyond).
   * Default 50000: parsing that many costs a few milliseconds of the event loop; a body of
   * millions of tiny values within the size limit would cost a second. A definition travels as
   * one string, so this never limits installs.
   */
  maxJsonElements?: number;
  /** Largest downloaded definition in bytes (413 beyond). Default 64 MiB. */
  maxDefinitionBytes?: number;
  /** Definition download deadline (504 beyond). Default 30000. */
  downloadTimeoutMs?: number;
  /**
   * Decides where definition downloads may connect (every resolved address, every redirect hop).
   * Pass the policy tool calls use, built by `createOutboundPolicy` with the server's own endpoint,
   * so a download can never reach cyrnel's own API: the app alone cannot know where it is served.
   * When set, `allowPrivateUrls`, `allowCidrs` and `denyCidrs` are ignored. Default: a policy
   * built from those three, without the own-endpoint rule.
   */
  outbound?: OutboundPolicy;
  /** Let definition downloads reach private, loopback and link-local addresses. Default false. */
  allowPrivateUrls?: boolean;
  /** CIDR blocks downloads may reach even though they are private. */
  allowCidrs?: readonly string[];
  /** CIDR blocks downloads may never reach (wins over every allow). */
  denyCidrs?: readonly string[];
  /** Time `wait:true` gives a process beyond its timeout. Default 5000. */
  waitMarginMs?: number;
  /** Interval of SSE heartbeat comments. Default 15000. */
  heartbeatMs?: number;
  /**
   * Event JSON one `/processes/:id/events` stream may hold unsent (a client reading slower than
   * the process writes) before the stream is dropped. Default 32 MiB, above the replay of a
   * finished process with the default stdout, stderr and output caps.
   */
  maxEventQueueBytes?: number;
  /** Most `/processes/:id/events` streams open at once (429 `too_many_streams` beyond). Default 256. */
  maxEventStreams?: number;
  /**
   * Event JSON all event streams together may hold unsent; a stream whose next event would
   * exceed it is dropped. Default 256 MiB.
   */
  maxEventBufferBytes?: number;
  /**
   * Requests per second (with a burst) each stored key may send to the routes that start runs
   * (`POST /processes`, `POST /processes/:id/signals/run`) and to route groups marked
   * `rateLimited` (the MCP endpoint), together; beyond, 429 `rate_limited` with `Retry-After`.
   * Kept per host in memory. The bootstrap `apiKey` and an open server are not limited.
   * `perSecond: 0` turns it off. Default 20 a second, bursts of 100.
   */
  rateLimit?: RateLimit;
  /**
   * Extra route groups (an MCP endpoint at `/mcp`, an admin UI at `/ui`), mounted behind the
   * same request id, access log, host allow-list, cross-site guard, JSON content type, key and
   * role checks as the app's own routes, with request bodies capped at `maxBodyBytes` (413).
   * Each says who may use it (`auth`, default `admin`). A path that overlaps a built-in route or
   * another group throws.
   */
  routes?: readonly RouteGroup[];
  /**
   * OAuth access tokens accepted besides keys on some paths (the server's `/mcp`): how they are
   * verified into callers and the `WWW-Authenticate` challenge of a 401 there. With it the server
   * is never open (a request needs a key or a token even before the first key is stored).
   */
  oauth?: OAuthBearerOptions;
  /**
   * The server's metrics, served at `GET /metrics` (admin keys) in the Prometheus text format.
   * Absent: the route is not served.
   */
  metrics?: MetricsSource;
  /**
   * The server's recent log lines, served at `GET /logs` (admin keys), listed or followed as
   * Server-Sent Events. Absent: the route is not served.
   */
  logs?: LogSource;
  /**
   * Most followers of `GET /logs` at once (429 `too_many_streams` beyond), among the
   * `maxEventStreams`: each line written is sent to every follower, so a flood of followers would
   * multiply every line the server logs. Default 16.
   */
  maxLogFollowers?: number;
  /** Told of every request answered (its route's pattern, status, time), for metrics. */
  onRequest?: (request: RequestObservation) => void;
  /**
   * A span per request through the global OpenTelemetry API (the embedder registers an SDK),
   * continuing a caller's W3C `traceparent`; active while the request is handled, so a process
   * it creates runs in the caller's trace. Default false: no span, no cost.
   */
  tracing?: boolean;
}

const MIB = 1024 * 1024;

/**
 * What `createApp` applies where its options leave a limit out (the server's flags default to
 * them): each is explained on its option of {@link CreateAppOptions}.
 */
export const DEFAULT_APP_LIMITS = Object.freeze({
  maxBodyBytes: 64 * MIB,
  maxJsonDepth: MAX_JSON_DEPTH,
  maxJsonElements: 50_000,
  maxDefinitionBytes: DEFAULT_DOWNLOAD_LIMITS.maxBytes,
  downloadTimeoutMs: DEFAULT_DOWNLOAD_LIMITS.timeoutMs,
  waitMarginMs: 5000,
  heartbeatMs: 15_000,
  maxEventQueueBytes: 32 * MIB,
  maxEventStreams: 256,
  maxEventBufferBytes: 256 * MIB,
  maxLogFollowers: 16,
  rateLimitPerSecond: 20,
  rateLimitBurst: 100,
});
const SILENT: HttpLogger = { info() {}, warn() {}, error() {} };

/**
 * Build the cyrnel HTTP API over a core host: every route of `API_ROUTES` (`@cyrnel/sdk/api`)
 * with its handler, behind the request id, access log, browser boundary, key and role checks.
 *
 * @example
 * const app = createApp(host, { apiKey: process.env.CYRNEL_API_KEY });
 * serve({ fetch: app.fetch, port: 9371, hostname: '127.0.0.1' });
 */
export function createApp(host: CyrnelHost, options: CreateAppOptions = {}): Hono<AppEnv> {
  const logger = options.logger ?? SILENT;
  const groups = options.routes ?? [];
  checkRouteGroups(groups);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_APP_LIMITS.maxBodyBytes;
  const maxEventStreams = options.maxEventStreams ?? DEFAULT_APP_LIMITS.maxEventStreams;
  const maxEventBufferBytes = options.maxEventBufferBytes ?? DEFAULT_APP_LIMITS.maxEventBufferBytes;
  const ctx = createRouteContext({
    host,
    logger,
    maxBodyBytes,
    maxJsonDepth: options.maxJsonDepth ?? DEFAULT_APP_LIMITS.maxJsonDepth,
    maxJsonElements: options.maxJsonElements ?? DEFAULT_APP_LIMITS.maxJsonElements,
    maxDefinitionBytes: options.maxDefinitionBytes ?? DEFAULT_APP_LIMITS.maxDefinitionBytes,
    downloadTimeoutMs: options.downloadTimeoutMs ?? DEFAULT_APP_LIMITS.downloadTimeoutMs,
    outbound:
      options.outbound ??
      createOutboundPolicy({
        ...(options.allowPrivateUrls === undefined ? {} : { allowPrivateUrls: options.allowPrivateUrls }),
        ...(options.allowCidrs === undefined ? {} : { allowCidrs: options.allowCidrs }),
        ...(options.denyCidrs === undefined ? {} : { denyCidrs: options.denyCidrs }),
      }),
    waitMarginMs: options.waitMarginMs ?? DEFAULT_APP_LIMITS.waitMarginMs,
    heartbeatMs: options.heartbeatMs ?? DEFAULT_APP_LIMITS.heartbeatMs,
    maxEventQueueBytes: options.maxEventQueueBytes ?? DEFAULT_APP_LIMITS.maxEventQueueBytes,
    maxEventStreams,
    maxEventBufferBytes,
    eventStreams: createEventStreamBudget({ maxStreams: maxEventStreams, maxBytes: maxEventBufferBytes }),
  });
  const app = new Hono<AppEnv>();
  app.use(requestId());
  if (options.tracing === true) app.use(requestTrace());
  app.use(accessLog(logger, options.onRequest));
  // The browser boundary comes first, on every route: a page on another site or a rebound DNS
  // name is refused before anything else looks at the request.
  app.use(hostAllowList({ allowedHosts: options.allowedHosts ?? [] }));
  // Before the key check: a person opening the server's address in a browser has no key to send.
  const { rootRedirect } = options;
  if (rootRedirect !== undefined) {
    app.use(async (c, next) =>
      c.req.path === '/' && (c.req.method === 'GET' || c.req.method === 'HEAD')
        ? c.redirect(rootRedirect, 302)
        : next(),
    );
  }
  // Preflights carry no key: answered before the key is asked for, to the listed origins only.
  app.use(groupCors({ groups, allowedOrigins: options.allowedOrigins ?? [] }));
  app.use(crossSiteGuard({ allowedOrigins: options.allowedOrigins ?? [] }));
  app.use(jsonContentType());
  app.use(
    bearerAuth({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.keys === undefined ? {} : { keys: options.keys }),
      publicPaths: groupPaths(groups, 'none'),
      ...(options.oauth === undefined ? {} : { oauth: options.oauth }),
    }),
  );
  app.use(roleGuard({ agentPaths: groupPaths(groups, 'agent', 'none') }));
  app.use(
    rateLimit({
      perSecond: options.rateLimit?.perSecond ?? DEFAULT_APP_LIMITS.rateLimitPerSecond,
      burst: options.rateLimit?.burst ?? DEFAULT_APP_LIMITS.rateLimitBurst,
      paths: groups.filter((group) => group.rateLimited).map((group) => group.path),
    }),
  );
  // Every streaming answer of a stored key, so that deleting the key closes it.
  const keyStreams = createKeyStreams({
    ...(options.keys === undefined ? {} : { keys: options.keys }),
    ...(options.keyCheckMs === undefined ? {} : { checkMs: options.keyCheckMs }),
  });
  app.use(keyStreams.middleware);
  // The app's own routes read bodies under the limit themselves; a group's routes read them raw.
  if (groups.length > 0)
    app.use(
      groupBodyLimit(
        groups.map((group) => group.path),
        maxBodyBytes,
      ),
    );
  const handlers = apiHandlers(ctx, {
    document: openApiDocument(HTTP_VERSION),
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
    ...(options.keys === undefined ? {} : { keys: options.keys }),
    keyStreams,
    // The bootstrap key is an admin whatever is stored; without it, a stored admin key must stay.
    keepAnAdmin: options.apiKey === undefined || options.apiKey === '',
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.logs ? { logs: options.logs } : {}),
    maxLogFollowers: options.maxLogFollowers ?? DEFAULT_APP_LIMITS.maxLogFollowers,
  });
  mountRoutes(app, handlers, ctx);
  for (const group of groups) app.route(group.path, group.app);
  app.notFound((c) =>
    c.json(
      {
        error: `no route for ${c.req.method} ${c.req.path}`,
        code: 'not_found',
        reason: 'route_not_found',
      } satisfies ErrorBody,
      404,
    ),
  );
  app.onError((error, c) => errorResponse(error, c, logger, options.redactor));
  return app;
}

/** Cap request bodies on the route groups' paths (413 `payload_too_large` beyond `maxBytes`). */
function groupBodyLimit(paths: readonly string[], maxBytes: number): MiddlewareHandler<AppEnv> {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw cyrnelError('payload_too_large', `the request body is larger than ${maxBytes} bytes`);
    },
  });
  return (c, next) => (paths.some((path) => isWithin(c.req.path, path)) ? limit(c, next) : next());
}
