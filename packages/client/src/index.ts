export type { ApprovalsApi } from './approvals-api';
export type { ConnectionsApi } from './connections-api';
export { type ClientOptions, type CyrnelClient, createClient } from './create-client';
export type { EnvironmentApi } from './environment-api';
export {
  CyrnelHttpError,
  CyrnelNetworkError,
  CyrnelProcessError,
  CyrnelTimeoutError,
  type UnknownErrorCode,
} from './errors';
export type { KeysApi } from './keys-api';
export type { LogFollowOptions, LogsApi } from './logs-api';
export type { MetricsApi } from './metrics-api';
export type { ModulesApi } from './modules-api';
export type { PrincipalsApi } from './principals-api';
export type { ProcessEventsOptions } from './process-events';
export type { ProcessesApi, RunProcessOptions } from './processes-api';
export type { RegistriesApi } from './registries-api';
export type { RequestOptions } from './request-options';
export type { InstallServiceInput, ServicesApi } from './services-api';
export type { SettingsApi } from './settings-api';
export type { ToolsApi } from './tools-api';
