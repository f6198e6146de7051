/** Per-call options every client method accepts as its last argument. */
export interface RequestOptions {
  /** Aborts the call; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call; `0` means no deadline. */
  timeoutMs?: number;
  /**
   * A W3C trace context to continue at the server: sent as the `traceparent` (and `tracestate`)
   * header, so a traced server puts what the request does in the caller's trace.
   *
   * @example
   * ```ts
   * await client.processes.create({ code }, { trace: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
   * ```
   */
  trace?: { readonly traceparent: string; readonly tracestate?: string };
}
