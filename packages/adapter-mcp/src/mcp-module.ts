import type { AdapterModule, BuiltinModule, JSONSchema, ModuleInfo } from '@cyrnel/sdk';
import { version } from '../package.json';
import { createMcpAdapter } from './lazy-adapter';

/** The built-in module's manifest (module id `mcp`). */
export const manifest: ModuleInfo = {
  id: 'mcp',
  name: 'MCP',
  description:
    'Turns an MCP server (a command on stdio, or a Streamable HTTP endpoint) into a service whose tools are its tools',
  type: 'adapter',
  version,
};

/**
 * The module's configuration: which commands stdio servers may be started with (none by
 * default: starting a command is running code on this machine), and the connect deadline.
 */
export const configSchema: JSONSchema = {
  type: 'object',
  properties: {
    allowedCommands: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 4096 },
      maxItems: 200,
      default: [],
      description:
        'Commands a stdio MCP server may be started with, compared exactly (e.g. "npx", "/usr/bin/uvx")',
    },
    connectTimeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 600_000,
      default: 60_000,
      description: 'Deadline of starting or reaching a server and its initialize handshake, in ms',
    },
  },
  additionalProperties: false,
};

/** The module has no secrets: each service's live in its own secrets. */
export const secretsSchema: JSONSchema = { type: 'object', properties: {}, additionalProperties: false };

/** Create a fresh, not yet set-up adapter instance. */
export function instantiate(): AdapterModule {
  return createMcpAdapter();
}

/** The built-in module object the server registers. */
export const mcpModule: BuiltinModule<AdapterModule> = { manifest, configSchema, secretsSchema, instantiate };
