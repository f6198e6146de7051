import type { DiscoveredService, DiscoveredTool } from '@cyrnel/sdk';
import type { ProcessRecord, ServiceRecord, ToolCallRecord, ToolRecord } from '@cyrnel/sdk/api';
import type { ProcessView } from './backend';

/** What both backends answer from the same records (the host's API and the HTTP API's). */

/** A listed tool as `search_tools` answers it. */
export function discoveredTool(tool: ToolRecord): DiscoveredTool {
  return { serviceId: tool.serviceId, toolId: tool.id, name: tool.name, description: tool.description };
}

/** The services agents can call now (enabled and hydrated), as discovery answers them. */
export function callableServices(items: readonly ServiceRecord[]): DiscoveredService[] {
  return items
    .filter((service) => service.effectivelyEnabled)
    .map(({ id, name, description, toolCount }) => ({ id, name, description, toolCount }));
}

/** A process as the MCP tools report it: its record, its results (empty while it runs) and calls. */
export function processView(
  record: ProcessRecord,
  results: { readonly output: Record<string, unknown>; readonly stdout: string; readonly stderr: string },
  calls: readonly ToolCallRecord[],
): ProcessView {
  return {
    processId: record.id,
    state: record.state,
    exitState: record.exitState,
    error: record.error,
    ...results,
    toolCalls: calls.map(({ serviceId, toolId, ok, durationMs, errorReason }) => ({
      serviceId,
      toolId,
      ok,
      durationMs,
      errorReason,
    })),
  };
}

/**
 * Split `service.tool` names into the callable ones, whose declarations are rendered together,
 * and the rest (malformed, unknown or disabled), listed by name.
 */
export async function typesOf(
  names: readonly string[],
  callable: (serviceId: string, toolId: string) => Promise<boolean>,
  declarations: (tools: string[]) => Promise<string>,
): Promise<{ declarations: string; unknown: string[] }> {
  const unknown: string[] = [];
  const known: string[] = [];
  for (const name of names) {
    const [serviceId, toolId, ...rest] = name.split('.');
    const found = serviceId && toolId && rest.length === 0 ? await callable(serviceId, toolId) : false;
    (found ? known : unknown).push(name);
  }
  return { declarations: known.length > 0 ? await declarations(known) : '', unknown };
}
