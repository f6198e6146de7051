export type { McpBackend, ProcessView } from './backend';
export { type ClientBackendOptions, createClientBackend } from './client-backend';
export { createHostBackend, type HostBackendOptions } from './host-backend';
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpHandlerOptions } from './http';
export { type CyrnelMcpServerOptions, createCyrnelMcpServer, INSTRUCTIONS, viewText } from './server';
export { serveCyrnelStdio } from './stdio';
