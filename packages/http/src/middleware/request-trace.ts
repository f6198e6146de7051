import { contextOf, TRACE_ATTRIBUTES } from '@cyrnel/core';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { version } from '../../package.json';
import type { AppEnv } from '../app-env';

/** The route a request matched (`/processes/:id`), or none for a request no route took. */
function routeOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string | undefined {
  const route = routePath(c, -1);
  return route && route !== '*' && route !== '/*' ? route : undefined;
}

/**
 * A server span per request (`POST /processes`) through the global OpenTelemetry API, continuing
 * the caller's trace from a W3C `traceparent` header (and `tracestate`), active while the request
 * is handled: a process it creates stores it and runs as its child. Attributes: method, route,
 * path (never the query), status, request id, and the caller's key id, principal and role; never
 * a header value or a body.
 *
 * @example
 * ```ts
 * app.use(requestId());
 * app.use(requestTrace());
 * ```
 */
export function requestTrace(): MiddlewareHandler<AppEnv> {
  const tracer = trace.getTracer('@cyrnel/http', version);
  return async (c, next) => {
    const parent = contextOf({
      traceparent: c.req.header('traceparent'),
      tracestate: c.req.header('tracestate'),
    });
    const method = c.req.method;
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': c.req.path,
          'url.scheme': new URL(c.req.url).protocol.replace(':', ''),
          'cyrnel.request_id': c.get('requestId'),
        },
      },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const route = routeOf(c);
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      const status = c.res.status;
      span.setAttribute('http.response.status_code', status);
      const caller = c.get('caller');
      if (caller) {
        if (caller.keyId) span.setAttribute(TRACE_ATTRIBUTES.keyId, caller.keyId);
        if (caller.principalId) span.setAttribute(TRACE_ATTRIBUTES.principal, caller.principalId);
        span.setAttribute('cyrnel.role', caller.role);
      }
      if (status >= 500) {
        span.setAttribute(TRACE_ATTRIBUTES.errorType, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  };
}
