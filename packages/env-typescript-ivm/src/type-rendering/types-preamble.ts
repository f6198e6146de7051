/**
 * The declaration every stub refers to (see `stubType`): an object whose members are not
 * checked, named by what to ask for.
 */
export const STUB_DECLARATION = `/**
 * A type left out to keep these declarations small: an object whose members are not checked here
 * (or \`Shape\`, e.g. string for a long list of values). Ask for it by its name: get_tool_types with
 * types: [name], GET /environment/types?types=name, or cyrnel.discover.types({ types: [name] }).
 */
type CyrnelStub<Name extends string, Shape = { [member: string]: unknown }> = Shape;
`;

/**
 * The sandbox globals around the tools: `cyrnel` (whose `services` member is `services`, one
 * line per service), the tool error, the console and the timers.
 */
export function sandboxGlobals(services: string): string {
  return `/** A rejected tool call: the gate's HTTP status (or 502 for adapter failures), its stable code and reason. */
interface CyrnelToolError extends Error {
  status: number;
  /** Status class, e.g. 'conflict'. */
  code: string;
  /** What precisely went wrong, e.g. 'service_disabled' or 'tool_disabled'. */
  reason: string;
}

/**
 * A service's tools, called with the process's connection to it (its principal's own, or the
 * shared one); \`connection(name)\` calls them with another connection the principal may use.
 */
interface CyrnelService<Tools> {
  tools: Tools;
  /** The same tools with the connection named \`name\` (404 connection_not_found, 403 connection_forbidden). */
  connection(name: string): { tools: Tools };
}

/** A tool as discovery answers it. */
interface CyrnelToolSummary { serviceId: string; toolId: string; name: string; description: string }

/** The sandbox API of the typescript-ivm environment. */
declare const cyrnel: {
  /** Merge a JSON-serialisable plain object into the process output (shallow). */
  output(value: Record<string, unknown>): void;
  /** The same call as \`cyrnel.services[serviceId].tools[toolId].invoke(parameters)\`, by name. */
  invoke(serviceId: string, toolId: string, parameters?: Record<string, unknown>): Promise<unknown>;
  /** Tools by service id and tool id; every call goes through the host's invocation gate. */
  services: {
${services}
  };
  discover: {
    services(query?: { query?: string }): Promise<{ id: string; name: string; description: string; toolCount: number }[]>;
    tools(query?: { query?: string; serviceId?: string; limit?: number }): Promise<CyrnelToolSummary[]>;
    tool(serviceId: string, toolId: string): Promise<CyrnelToolSummary & { inputSchema: Record<string, unknown>; outputSchema: Record<string, unknown>; signature: string }>;
    /** These declarations for a selection: whole services, \`<serviceId>.<toolId>\` tools, the types of stubs by name, a budget per tool. */
    types(selection?: { services?: string[]; tools?: string[]; types?: string[]; maxBytes?: number }): Promise<string>;
  };
  console: Console;
};

interface Console {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  debug(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
}
declare var console: Console;
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
declare function clearTimeout(id: number | undefined): void;
`;
}
