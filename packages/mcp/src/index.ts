export {
  type BackendCatalogWatchOptions,
  type CatalogChanges,
  type CatalogWatch,
  type CatalogWatchOptions,
  createBackendCatalogWatch,
  createCatalogWatch,
} from './catalog-watch';
export { type ClientBackendOptions, createClientBackend } from './client-backend';
export { DIRECT_CALL_REF } from './direct-tool-call';
export { MAX_TOOL_NAME_LENGTH } from './direct-tool-names';
export {
  createDirectToolsHost,
  type DirectToolsCaller,
  type DirectToolsHost,
  type DirectToolsHostOptions,
} from './direct-tools-host';
export { createDirectToolsHttpHandler, type DirectToolsHttpOptions } from './direct-tools-http';
export {
  createRemoteDirectTools,
  type RemoteDirectTools,
  type RemoteDirectToolsOptions,
} from './direct-tools-remote';
export {
  createDirectToolsServer,
  DIRECT_TOOLS_INSTRUCTIONS,
  type DirectCallAnswer,
  type DirectCallContext,
  type DirectToolsServerOptions,
  type DirectToolsSource,
} from './direct-tools-server';
export { type DirectToolsStdioOptions, serveDirectToolsStdio } from './direct-tools-stdio';
export { EFFICIENCY_META, type EfficiencyMeta, efficiencyMeta } from './efficiency-meta';
export { createHostBackend, type HostBackendOptions } from './host-backend';
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpHandlerOptions } from './http';
export type { McpBackend, SettleOptions } from './mcp-backend';
export { type ProcessView, viewText } from './process-view';
export { type CyrnelMcpServerOptions, createCyrnelMcpServer, INSTRUCTIONS } from './server';
export { type CyrnelStdioOptions, serveCyrnelStdio } from './stdio';
export type { McpTasksOptions } from './tasks';
