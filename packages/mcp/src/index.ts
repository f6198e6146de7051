export {
  type BackendCatalogWatchOptions,
  type CatalogChanges,
  type CatalogWatch,
  type CatalogWatchOptions,
  createBackendCatalogWatch,
  createCatalogWatch,
} from './catalog-watch';
export { type ClientBackendOptions, createClientBackend } from './client-backend';
export { createHostBackend, type HostBackendOptions } from './host-backend';
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpHandlerOptions } from './http';
export type { McpBackend, SettleOptions } from './mcp-backend';
export { type ProcessView, viewText } from './process-view';
export { type CyrnelMcpServerOptions, createCyrnelMcpServer, INSTRUCTIONS } from './server';
export { type CyrnelStdioOptions, serveCyrnelStdio } from './stdio';
