/**
 * Wire types of the cyrnel HTTP API, shared by `@cyrnel/http` and
 * `@cyrnel/client` so both speak exactly one definition.
 */
export type {
  ConfigResponse,
  HealthResponse,
  JsonPatch,
  JsonPatchOperation,
  SchemaResponse,
  SecretsPresenceResponse,
  SecretsUpdatedResponse,
  SetEnabledRequest,
} from './api/common';
export {
  ERROR_REASONS,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  type ErrorCodeOf,
  type ErrorReason,
  isErrorReason,
  type ValidationIssue,
} from './api/errors';
export {
  type CreatedKey,
  type CreateKeyRequest,
  KEY_ROLES,
  type KeyListQuery,
  type KeyRecord,
  type KeyRole,
} from './api/keys';
export { DEFAULT_PAGE_LIMIT, type ListResponse, MAX_PAGE_LIMIT, type PageQuery } from './api/lists';
export type {
  InstallModuleRequest,
  ModuleDetail,
  ModuleListQuery,
  ModuleOrigin,
  ModuleRecord,
  ModuleStatus,
  ModuleUpdateResult,
  PatchModuleRequest,
  ReloadModulesResponse,
} from './api/modules';
export type {
  CreateProcessRequest,
  CreateProcessResponse,
  ProcessCallsResponse,
  ProcessEvent,
  ProcessEventMap,
  ProcessListQuery,
  ProcessOutput,
  ProcessRecord,
  ProcessResult,
  ProcessSummary,
  RunProcessRequest,
  ToolCallRecord,
} from './api/processes';
export type {
  RegistryDocument,
  RegistryEntry,
  RegistryListing,
  RegistryModuleEntry,
  RegistryServiceEntry,
  RegistrySummary,
  RegistryVersion,
} from './api/registries';
export type {
  InstallFromRegistryRequest,
  InstallServiceRequest,
  RegistryOrigin,
  RegistryUpdateResult,
  ServiceDetail,
  ServiceListQuery,
  ServiceRecord,
  ServiceRefreshResult,
  UpdateServiceRequest,
} from './api/services';
export type { ToolDetail, ToolListQuery, ToolRecord } from './api/tools';
