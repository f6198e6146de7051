export { parseDefinition, type ServerSpec } from './definition';
export { INHERITED_ENV } from './inherited-env';
export { createMcpAdapter } from './lazy-adapter';
export {
  configSchema,
  instantiate,
  manifest,
  mcpModule,
  mcpModule as default,
  secretsSchema,
} from './mcp-module';
