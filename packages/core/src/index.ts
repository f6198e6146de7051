export type { EnvironmentLease, EnvironmentProvider } from './environment-provider';
export {
  ConflictError,
  CyrnelError,
  type CyrnelErrorOptions,
  ForbiddenError,
  isCyrnelError,
  NotFoundError,
  PayloadTooLargeError,
  TimeoutError,
  TooManyProcessesError,
  UnavailableError,
  UpstreamError,
  ValidationError,
} from './errors';
export type {
  CyrnelHost,
  EnvironmentApi,
  InstallServiceInput,
  ModulesApi,
  ProcessesApi,
  ServicesApi,
  ToolsApi,
  UpdateServiceInput,
} from './host';
export type { ToolGateway } from './tool-gateway';
