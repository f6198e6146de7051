import type { ToolDocsInput } from '@cyrnel/sdk';
import { renderSchemaType } from './schema-type';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function key(id: string): string {
  return IDENTIFIER.test(id) ? id : JSON.stringify(id);
}

function comment(text: string, pad: string): string {
  const clean = text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim();
  return clean ? `${pad}/** ${clean} */\n` : '';
}

/**
 * Ambient declarations of the sandbox globals (`declare const cyrnel: {...}`) covering every
 * given tool's input and output, for `GET /environment/types`. Compiles with `tsc`.
 */
export function generateTypes(tools: readonly ToolDocsInput[]): string {
  const byService = new Map<string, ToolDocsInput[]>();
  for (const tool of tools) {
    const list = byService.get(tool.serviceId);
    if (list) list.push(tool);
    else byService.set(tool.serviceId, [tool]);
  }
  const services = [...byService].map(([serviceId, list]) => {
    const members = list.map((tool) => {
      const input = renderSchemaType(tool.inputSchema, { indent: 4, comments: true });
      const output = renderSchemaType(tool.outputSchema, { indent: 4, comments: true });
      return `${comment(tool.description, '        ')}        ${key(tool.toolId)}: { invoke(parameters: ${input}): Promise<${output}> };`;
    });
    return `    ${key(serviceId)}: {\n      tools: {\n${members.join('\n')}\n      };\n    };`;
  });
  return `/** A rejected tool call: the gate's HTTP status (or 502 for adapter failures) and a stable code. */
interface CyrnelToolError extends Error {
  status: number;
  code: string;
}

/** The sandbox API of the typescript-ivm environment. */
declare const cyrnel: {
  /** Merge a JSON-serialisable plain object into the process output (shallow). */
  output(value: Record<string, unknown>): void;
  /** Tools by service id and tool id; every call goes through the host's invocation gate. */
  services: {
${services.join('\n')}
  };
  discover: {
    services(query?: { query?: string }): Promise<{ id: string; name: string; description: string; toolCount: number }[]>;
    tools(query?: { query?: string; serviceId?: string; limit?: number }): Promise<{ serviceId: string; toolId: string; name: string; description: string }[]>;
    tool(serviceId: string, toolId: string): Promise<{ serviceId: string; toolId: string; name: string; description: string; inputSchema: Record<string, unknown>; outputSchema: Record<string, unknown>; signature: string }>;
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
