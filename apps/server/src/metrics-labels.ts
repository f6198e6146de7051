/** The label value standing for every service and tool past the bound of {@link boundedToolLabels}. */
export const OTHER_LABEL = '_other';

/** Distinct service and tool pairs that get labels of their own: a few big catalogs' worth. */
export const MAX_TOOL_LABELS = 2000;

/**
 * The `service` and `tool` labels of a call, bounded: the first `limit` distinct pairs keep their
 * ids (operator-installed services and tools: the host only reports those that reached their
 * adapter), any later pair is counted as `_other`, so no catalog and no hostile id can grow the
 * number of series without bound.
 *
 * @example
 * ```ts
 * const labels = boundedToolLabels(2);
 * labels('shop', 'getUser'); // { service: 'shop', tool: 'getUser' }
 * ```
 */
export function boundedToolLabels(
  limit = MAX_TOOL_LABELS,
): (serviceId: string, toolId: string) => { service: string; tool: string } {
  const seen = new Set<string>();
  return (serviceId, toolId) => {
    const key = `${serviceId}\u0000${toolId}`;
    if (seen.has(key)) return { service: serviceId, tool: toolId };
    if (seen.size >= limit) return { service: OTHER_LABEL, tool: OTHER_LABEL };
    seen.add(key);
    return { service: serviceId, tool: toolId };
  };
}

/**
 * The class of an upstream's answer to a call that reached its adapter: `2xx` … `5xx` from its
 * HTTP status, `network_error` when the adapter failed without one (unreachable, timed out, an
 * answer too large), `no_status` for a success of an adapter without HTTP statuses (MCP).
 */
export function upstreamClass(call: { readonly ok: boolean; readonly status: number | null }): string {
  if (call.status !== null) return `${Math.floor(call.status / 100)}xx`;
  return call.ok ? 'no_status' : 'network_error';
}
