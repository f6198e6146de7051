import { context, createContextKey } from '@opentelemetry/api';

/** The W3C trace context a traced `tools/call` hands its server, in the context of its requests. */
const TRACE_HEADERS = createContextKey('@cyrnel/adapter-mcp trace headers');

/**
 * Run `send` with `headers` (a `traceparent`, and `tracestate` if any) for the HTTP requests it
 * makes: {@link traceHeaders} reads them where the SDK's transport calls its `fetch`. Nothing is
 * kept without headers (a call that is not traced or does not propagate).
 *
 * @example
 * ```ts
 * await withTraceHeaders({ traceparent }, () => client.callTool({ name, arguments: args }));
 * ```
 */
export function withTraceHeaders<T>(headers: Readonly<Record<string, string>> | undefined, send: () => T): T {
  if (!headers) return send();
  return context.with(context.active().setValue(TRACE_HEADERS, headers), send);
}

/** The trace headers of the call whose request is being sent, if it hands on its trace. */
export function traceHeaders(): Readonly<Record<string, string>> | undefined {
  return context.active().getValue(TRACE_HEADERS) as Readonly<Record<string, string>> | undefined;
}
