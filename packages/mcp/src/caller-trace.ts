import { carrierOf, contextOf, TRACE_ATTRIBUTES, type TraceCarrier } from '@cyrnel/core';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { version } from '../package.json';

/**
 * Run a tool call in the caller's trace when its request's `_meta` carries a W3C `traceparent`
 * (and `tracestate`): a span `tools/call <tool>` continuing it (linked to the HTTP request's span,
 * when there is one) is active meanwhile, so a process it creates runs in that trace. Without a
 * valid `traceparent` it only runs `call`. Through the global OpenTelemetry API: a no-op until
 * the server registers an SDK.
 *
 * @example
 * ```ts
 * return inCallerTrace(ctx.mcpReq._meta, 'execute_typescript', () => run(args));
 * ```
 */
export async function inCallerTrace<T>(
  meta: Readonly<Record<string, unknown>> | undefined,
  tool: string,
  call: () => Promise<T>,
): Promise<T> {
  const parent = contextOf(meta);
  const remote = trace.getSpanContext(parent);
  if (!remote) return call();
  const request = trace.getSpanContext(context.active());
  const span = trace.getTracer('@cyrnel/mcp', version).startSpan(
    `tools/call ${tool}`,
    {
      kind: SpanKind.SERVER,
      attributes: { 'mcp.method.name': 'tools/call', [TRACE_ATTRIBUTES.toolName]: tool },
      ...(request ? { links: [{ context: request }] } : {}),
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), call);
  } catch (error) {
    const reason = (error as { reason?: unknown } | null)?.reason;
    span.setAttribute(TRACE_ATTRIBUTES.errorType, typeof reason === 'string' ? reason : 'error');
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * The W3C trace context of a request's `_meta` (`traceparent`, and `tracestate` if any) to hand
 * on to the server a bridge forwards to, or undefined when it has no valid `traceparent`.
 *
 * @example
 * ```ts
 * const trace = traceMetaOf(ctx.mcpReq._meta); // { traceparent: '00-…-…-01' } or undefined
 * ```
 */
export function traceMetaOf(meta: Readonly<Record<string, unknown>> | undefined): TraceCarrier | undefined {
  if (meta?.traceparent === undefined) return undefined;
  return carrierOf(contextOf(meta));
}
