import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { version } from '../package.json';

/** What the span of one MCP request names. */
export interface McpCallLabels {
  readonly serviceId: string;
  /** The server's own name of the tool. */
  readonly tool: string;
  /** `stdio` or `http`. */
  readonly transport: string;
  /** Send the trace context in the request's `_meta`, and over HTTP its headers (the service's `propagateTrace`). */
  readonly propagate: boolean;
}

/**
 * Make an MCP `tools/call` in a client span (`tools/call <tool>`, through the global OpenTelemetry
 * API; a no-op without an SDK) that records the service, the tool, the transport and how it ended
 * (`error.type`), never arguments or results; with `propagate`, `call` gets the span's W3C
 * `traceparent` (and `tracestate`) to send in the request's `_meta` (and over HTTP its headers, with
 * `withTraceHeaders`).
 *
 * @example
 * ```ts
 * const result = await tracedCall(labels, (meta) => connection.callTool(name, args, { timeoutMs, meta }));
 * ```
 */
export function tracedCall<T>(
  labels: McpCallLabels,
  call: (meta: Readonly<Record<string, string>> | undefined) => Promise<T>,
): Promise<T> {
  const tracer = trace.getTracer('@cyrnel/adapter-mcp', version);
  return tracer.startActiveSpan(
    `tools/call ${labels.tool}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': labels.tool,
        'network.transport': labels.transport === 'stdio' ? 'pipe' : 'tcp',
        'cyrnel.service': labels.serviceId,
      },
    },
    async (span) => {
      let meta: Record<string, string> | undefined;
      if (labels.propagate) {
        const carrier: Record<string, string> = {};
        propagation.inject(context.active(), carrier);
        if (carrier.traceparent) meta = carrier;
      }
      try {
        return await call(meta);
      } catch (error) {
        const reason = (error as { reason?: unknown } | null)?.reason;
        span.setAttribute('error.type', typeof reason === 'string' ? reason : 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
