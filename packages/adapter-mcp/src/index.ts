export { parseDefinition, type ServerSpec } from './definition';
export { createMcpAdapter } from './mcp-adapter';
export {
  configSchema,
  instantiate,
  manifest,
  mcpModule,
  mcpModule as default,
  secretsSchema,
} from './mcp-module';
export { INHERITED_ENV } from './stdio-transport';
