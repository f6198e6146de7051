export {
  type BodySchema,
  EMPTY_BODY,
  ENABLED_BODY,
  type FieldSpec,
  type FieldType,
  validateBody,
} from './body-schema';
export type {
  CatalogStorage,
  ModuleChange,
  ModuleRow,
  NewService,
  NewTool,
  ServiceDefinitionFields,
  ServiceRow,
  ServiceRowQuery,
  SettingsOwner,
  ToolDetailRow,
  ToolGateRow,
  ToolRow,
  ToolRowQuery,
  ToolSearchQuery,
} from './catalog-storage';
export {
  type CreateHostOptions,
  createHost,
  HOST_VERSION,
  type HostStorage,
  type RegistryOptions,
} from './create-host';
export * from './definition-source/index';
export type { EnvironmentLease, EnvironmentProvider } from './environment-provider';
export { CyrnelError, type CyrnelErrorOptions, cyrnelError, isCyrnelError } from './errors';
export type {
  CyrnelHost,
  EnvironmentApi,
  InstallServiceInput,
  ModulesApi,
  ProcessesApi,
  RegistriesApi,
  ServicesApi,
  ToolsApi,
  UpdateServiceInput,
} from './host';
export {
  createLocalSignals,
  type HostSignals,
  MAX_SIGNAL_BYTES,
  type SignalTopic,
} from './host-signals';
export { type JsonShapeLimits, jsonShapeExceeds } from './json-shape';
export * from './keys/index';
export { type LoadedSecretsKey, type LoadSecretsKeyOptions, loadSecretsKey } from './load-secrets-key';
export * from './outbound/index';
export * from './processes/index';
export { REQUEST_BODIES } from './request-bodies';
export {
  type ParsedSearch,
  parseSearch,
  type SearchTerm,
  searchWords,
  wordCount,
} from './search-text';
export { type SealedSecrets, secretsKeyId } from './secrets-cipher';
export type { ToolGateway } from './tool-gateway';
export {
  createSchemaChecker,
  type SchemaCheck,
  type SchemaChecker,
  type SchemaCheckerOptions,
} from './validation/schema-checker';
