import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { version } from '../package.json';
import type { HttpTransport, TransportRequest, TransportResponse } from './http-transport';

/** What the span of one request names: the service, the tool, the operation's path template. */
export interface RequestLabels {
  readonly serviceId: string;
  readonly toolId: string;
  /** The operation's path as the document writes it (`/users/{id}`): never a parameter value. */
  readonly template: string;
  /** Send the call's trace context upstream in `traceparent` (the service's `propagateTrace`). */
  readonly propagate: boolean;
}

/**
 * Send a request in a client span (`GET`, through the global OpenTelemetry API; a no-op without
 * an SDK) that records the method, the server, the path template, the status and the body sizes,
 * never the URL's path or query, a header or a body; with `propagate`, the span's W3C
 * `traceparent` (and `tracestate`) goes upstream with the request.
 *
 * @example
 * ```ts
 * const response = await tracedSend(transport, request, { serviceId, toolId, template: '/users/{id}', propagate: true });
 * ```
 */
export function tracedSend(
  transport: HttpTransport,
  request: TransportRequest,
  labels: RequestLabels,
): Promise<TransportResponse> {
  const method = request.method.toUpperCase();
  const { url } = request;
  const tracer = trace.getTracer('@cyrnel/adapter-openapi', version);
  return tracer.startActiveSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'server.address': url.hostname,
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        'url.scheme': url.protocol.replace(':', ''),
        'url.template': labels.template,
        'http.request.body.size': request.body?.length ?? 0,
        'cyrnel.service': labels.serviceId,
        'cyrnel.tool': labels.toolId,
      },
    },
    async (span) => {
      let sent = request;
      if (labels.propagate) {
        const headers: Record<string, string> = { ...request.headers };
        propagation.inject(context.active(), headers);
        sent = { ...request, headers };
      }
      try {
        const response = await transport.send(sent);
        span.setAttribute('http.response.status_code', response.status);
        span.setAttribute('http.response.body.size', response.body.length);
        if (response.status >= 400) {
          span.setAttribute('error.type', String(response.status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        return response;
      } catch (error) {
        const code = (error as { reason?: unknown; code?: unknown } | null) ?? {};
        const type =
          typeof code.reason === 'string' ? code.reason : typeof code.code === 'string' ? code.code : 'Error';
        span.setAttribute('error.type', type);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
