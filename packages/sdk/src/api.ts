/**
 * The cyrnel HTTP API described once: every route (`API_ROUTES`: method, path, role, schemas,
 * reasons) and the wire types, shared by `@cyrnel/http` and `@cyrnel/client` so both speak
 * exactly one definition.
 */

export {
  APPROVAL_STATES,
  type ApprovalDetail,
  type ApprovalListQuery,
  type ApprovalRecord,
  type ApprovalState,
  type DecideApprovalRequest,
  type PlanResponse,
  type PlanTool,
} from './api/approvals';
export {
  AUTHORIZE_CONNECTION_BODY,
  type BodyFields,
  type BodySchema,
  CREATE_CONNECTION_BODY,
  CREATE_KEY_BODY,
  CREATE_PRINCIPAL_BODY,
  CREATE_PROCESS_BODY,
  DECIDE_APPROVAL_BODY,
  EMPTY_BODY,
  ENABLED_BODY,
  type FieldSpec,
  type FieldType,
  INSTALL_FROM_REGISTRY_BODY,
  INSTALL_MODULE_BODY,
  MAX_APPROVAL_NOTE_LENGTH,
  MAX_CONNECTION_NAME_LENGTH,
  MAX_KEY_NAME_LENGTH,
  MAX_PRINCIPAL_NAME_LENGTH,
  PATCH_MODULE_BODY,
  RUN_PROCESS_BODY,
  SERVICE_INSTALL_BODY,
  SERVICE_POLICY_BODY,
  SERVICE_UPDATE_BODY,
  UPDATE_CONNECTION_BODY,
} from './api/body-fields';
export type {
  ConfigResponse,
  HealthResponse,
  JsonPatch,
  JsonPatchOperation,
  OpenApiResponse,
  SchemaResponse,
  SecretsPresenceResponse,
  SecretsUpdatedResponse,
  SetEnabledRequest,
} from './api/common';
export {
  type AuthorizationStarted,
  type AuthorizeConnectionRequest,
  type AuthorizeConnectionResponse,
  CONNECTION_STATUSES,
  type ConnectionOAuth,
  type ConnectionRecord,
  type ConnectionStatus,
  type CreateConnectionRequest,
  DEFAULT_CONNECTION,
  OAUTH_FLOWS,
  type OAuthCallbackQuery,
  type OAuthFlow,
  type UpdateConnectionRequest,
} from './api/connections';
export {
  efficiencyRatio,
  efficiencySummary,
  formatBytes,
  type ProcessMetrics,
  type ServiceStats,
} from './api/efficiency';
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
export { IDENTITY_SCHEMA, type Identity, SIGN_INS, type SignIn } from './api/identity';
export {
  type CreatedKey,
  type CreateKeyRequest,
  KEY_ROLES,
  type KeyListQuery,
  type KeyRecord,
  type KeyRole,
} from './api/keys';
export { DEFAULT_PAGE_LIMIT, type ListResponse, MAX_PAGE_LIMIT, type PageQuery } from './api/lists';
export {
  LOG_LINE_LEVELS,
  LOG_LINE_SCHEMA,
  type LogLine,
  type LogLineLevel,
  type LogsQuery,
  type LogsResponse,
} from './api/logs';
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
export type { CallDecision, KeyPolicy, KeyScope, PolicyRule, ServicePolicy } from './api/policies';
export {
  type CreatePrincipalRequest,
  PRINCIPAL_KINDS,
  type PrincipalKind,
  type PrincipalListQuery,
  type PrincipalRecord,
} from './api/principals';
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
  TypeCheckMode,
  TypeCheckResponse,
  TypeDiagnostic,
} from './api/processes';
export { TYPE_CHECK_MODES } from './api/processes';
export { JSON_PATCH_SCHEMA, RECORD_SCHEMAS } from './api/record-schemas';
export type {
  RegistryDocument,
  RegistryEntry,
  RegistryListing,
  RegistryModuleEntry,
  RegistryServiceEntry,
  RegistrySummary,
  RegistryVersion,
} from './api/registries';
export {
  type AnswerMedia,
  type AnswerOf,
  APPROVAL_ID,
  type BodyOf,
  CHECKED_ID,
  defineRoute,
  eventStream,
  followableAnswer,
  jsonAnswer,
  jsonBody,
  markdownAnswer,
  noContent,
  objectBody,
  PAGE_QUERY,
  type ParamsOf,
  type PathParamNames,
  PLAIN_ID,
  PROCESS_ID,
  type QueryOf,
  type QueryParamSpec,
  type QuerySchema,
  queryParams,
  type Route,
  type RouteAnswer,
  type RouteBody,
  type RouteMethod,
  type RouteParam,
  type RouteQuery,
  type RouteRole,
  type Typed,
  textAnswer,
} from './api/route';
export { routeReasons } from './api/route-reasons';
export { API_ROUTES, type ApiResource, listRoutes, type NamedRoute } from './api/routes/api-routes';
export { APPROVAL_LIST_QUERY, APPROVAL_ROUTES } from './api/routes/approval-routes';
export { CONNECTION_ROUTES } from './api/routes/connection-routes';
export { ENVIRONMENT_ROUTES, type TypesQuery } from './api/routes/environment-routes';
export { KEY_ROUTES } from './api/routes/key-routes';
export { LOG_ROUTES, LOGS_QUERY } from './api/routes/log-routes';
export { META_ROUTES } from './api/routes/meta-routes';
export { METRICS_ROUTES } from './api/routes/metrics-routes';
export { MODULE_LIST_QUERY, MODULE_ROUTES } from './api/routes/module-routes';
export { PRINCIPAL_ROUTES } from './api/routes/principal-routes';
export { PROCESS_LIST_QUERY, PROCESS_ROUTES } from './api/routes/process-routes';
export { REGISTRY_ROUTES } from './api/routes/registry-routes';
export { SERVICE_LIST_QUERY, SERVICE_ROUTES } from './api/routes/service-routes';
export { type SettingsReasons, settingsRoutes } from './api/routes/settings-routes';
export { TOOL_LIST_QUERY, TOOL_ROUTES } from './api/routes/tool-routes';
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
export type { CatalogVersionResponse, ToolDetail, ToolListQuery, ToolRecord } from './api/tools';
