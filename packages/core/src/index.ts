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
} from './catalog/catalog-storage';
export {
  type ParsedSearch,
  parseSearch,
  type SearchTerm,
  searchWords,
  wordCount,
} from './catalog/search-text';
export * from './definition-source/index';
export type { EnvironmentLease, EnvironmentProvider } from './environments/environment-provider';
export { CyrnelError, type CyrnelErrorOptions, cyrnelError, isCyrnelError } from './errors';
export {
  type CreateHostOptions,
  createHost,
  HOST_VERSION,
  type HostStorage,
  type RegistryOptions,
} from './host/create-host';
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
} from './host/host-api';
export { type JsonShapeLimits, jsonShapeExceeds } from './json/json-shape';
export * from './keys/index';
export * from './outbound/index';
export * from './processes/index';
export {
  type LoadedSecretsKey,
  type LoadSecretsKeyOptions,
  loadSecretsKey,
} from './secrets/load-secrets-key';
export { type SealedSecrets, secretsKeyId } from './secrets/secrets-cipher';
export {
  createLocalSignals,
  type HostSignals,
  MAX_SIGNAL_BYTES,
  type SignalTopic,
} from './several-hosts/host-signals';
export type { ToolGateway } from './tools/tool-gateway';
export { validateBody } from './validation/body-schema';
export {
  createSchemaChecker,
  type SchemaCheck,
  type SchemaChecker,
  type SchemaCheckerOptions,
} from './validation/schema-checker';
