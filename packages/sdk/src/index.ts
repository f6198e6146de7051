export type {
  AdapterAuthorization,
  AdapterCredentials,
  AuthorizationBegun,
  AuthorizationCallbackQuery,
  AuthorizationRequest,
  CredentialStore,
} from './adapter-credentials';
export type { AdapterModule, GenerateDefinitionContext } from './adapter-module';
export type { ErrorCode, ErrorReason } from './api/errors';
export type {
  CatalogChange,
  DirectCall,
  DirectCallRuntime,
  DirectCalls,
  EgressChannel,
  EgressChannelOptions,
  PortableAdapter,
} from './direct-calls';
export type {
  DiscoveredService,
  DiscoveredTool,
  DiscoverServicesQuery,
  DiscoverToolsQuery,
  EnvironmentBindings,
  EnvironmentModule,
  EnvironmentSetupContext,
  FoundToolCall,
  FoundToolCalls,
  GenerateTypesOptions,
  ResolvedTools,
  ToolDescription,
  ToolName,
  TypeCheckContext,
  TypeDiagnostic,
  TypesSelection,
} from './environment-module';
export type { EnvironmentStats } from './environment-stats';
export { CyrnelError, type CyrnelErrorOptions, cyrnelError, isCyrnelError } from './errors';
export {
  ADMIN_TENANT,
  EXECUTION_EXIT_STATES,
  EXECUTION_STATES,
  type ExecutionExitState,
  type ExecutionInput,
  type ExecutionOptions,
  type ExecutionState,
  type ExecutionUsage,
  isExecutionExitState,
  isExecutionState,
  isProcessState,
  PROCESS_STATES,
  type ProcessState,
} from './execution';
export {
  IDENTIFIER_PATTERN,
  isOverlongName,
  isValidIdentifier,
  MAX_IDENTIFIER_LENGTH,
  RESERVED_WORDS,
  toIdentifier,
} from './identifier';
export type { InvokeInput, ToolDocsInput } from './invoke-input';
export { MAX_JSON_DEPTH } from './json-depth';
export type { JSONSchema } from './json-schema';
export { isJsonText, JSON_TEXT_KIND, type JsonText, jsonText } from './json-text';
export {
  type BuiltinModule,
  isModuleDefinition,
  isModuleManifest,
  MODULE_ID_PATTERN,
  MODULE_TYPES,
  type ModuleDefinition,
  type ModuleInfo,
  type ModuleInstance,
  type ModuleManifest,
  type ModuleType,
  SEMVER_PATTERN,
  validateModuleManifest,
} from './manifest';
export type { Module, ModuleLogger, ModuleSetupContext, ServiceEvents } from './module';
export type { OutboundPolicy } from './outbound-policy';
export { isPlainObject } from './plain-object';
export type { ServiceDefinition, ServiceState, ToolDefinition, ToolState } from './service-definition';
export {
  SHARED_SCHEMA_NAME_PATTERN,
  sharedSchemaClosure,
  sharedSchemaName,
  sharedSchemaRef,
  withSharedSchemas,
} from './shared-schemas';
export { MAX_TIMER_DELAY_MS } from './timer-delay';
export {
  defaultLabels,
  stricterPolicy,
  TOOL_ANNOTATIONS,
  TOOL_LABELS,
  TOOL_POLICIES,
  type ToolAnnotation,
  type ToolAnnotations,
  type ToolLabel,
  type ToolPolicy,
} from './tool-policy';
export { DEFAULT_TYPES_MAX_BYTES, MAX_TYPES_MAX_BYTES, MIN_TYPES_MAX_BYTES } from './types-budget';
