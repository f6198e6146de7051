export type {
  ApprovalDecision,
  ApprovalQuery,
  ApprovalRow,
  ApprovalStorage,
} from './approvals/approval-storage';
export {
  type ApprovalOutcome,
  type Approvals,
  type ApprovalsOptions,
  createApprovals,
} from './approvals/approvals';
export { createMemoryApprovalStorage } from './approvals/memory-approval-storage';
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
export type { ConnectionChange, ConnectionRow, ConnectionStorage } from './catalog/connection-storage';
export { storedAnnotations } from './catalog/memory-catalog-rows';
export { createMemoryCatalogStorage } from './catalog/memory-catalog-storage';
export {
  INDEXED_DESCRIPTION_WORDS,
  type ParsedSearch,
  parseSearch,
  type SearchTerm,
  searchWords,
  wordCount,
} from './catalog/search-text';
export {
  type ConnectionCaller,
  connectionContext,
  connectionInstanceId,
} from './connections/connection-records';
export type { ConnectionRouter, RunCredentials } from './connections/connection-router';
export type { ConnectionsApi } from './connections/connections-api';
export {
  DEFAULT_DOWNLOAD_LIMITS,
  DEFAULT_NPM_REGISTRY,
  type DownloadDefinitionOptions,
  downloadBytes,
  downloadDefinition,
} from './definition-source/download-definition';
export {
  type DefinitionFields,
  type ResolvedDefinition,
  resolveDefinition,
} from './definition-source/resolve-definition';
export { answerBytes } from './efficiency/answer-bytes';
export type { ServiceStatsStorage, ServiceUsage } from './efficiency/stats-storage';
export type { EnvironmentLease, EnvironmentProvider } from './environments/environment-provider';
export { CyrnelError, type CyrnelErrorOptions, cyrnelError, isCyrnelError } from './errors';
export type { EgressStats } from './gateway/egress-gateway';
export { createHost, HOST_VERSION } from './host/create-host';
export type {
  ApprovalsApi,
  CyrnelHost,
  EnvironmentApi,
  InstallServiceInput,
  ModulesApi,
  PoliciesApi,
  ProcessesApi,
  RegistriesApi,
  ServicesApi,
  ToolsApi,
  UpdateServiceInput,
} from './host/host-api';
export type { CreateHostOptions, HostStorage, RegistryOptions } from './host/host-options';
export { DEFAULT_APPROVAL_TIMEOUT_MS } from './host/host-parts';
export { type JsonShapeLimits, jsonShapeExceeds } from './json/json-shape';
export type { KeyRules } from './keys/key-ring';
export {
  type AuthenticatedKey,
  createKeyRing,
  hashApiKey,
  KEY_PREFIX,
  type KeepAnAdminOptions,
  type KeyRing,
  type KeyRingOptions,
} from './keys/key-ring';
export type { KeyDeleteOptions, KeyDeletion, KeyRow, KeyStorage, KeyStorageQuery } from './keys/key-storage';
export { createMemoryKeyStorage } from './keys/memory-key-storage';
export type {
  PrincipalDeletion,
  PrincipalListRow,
  PrincipalRow,
  PrincipalStorage,
  PrincipalStorageQuery,
} from './keys/principal-storage';
export type { Principals } from './keys/principals';
export {
  guardedHostMetrics,
  type HostMetrics,
  NO_HOST_METRICS,
  type RunEndedEvent,
  type ToolCallEndedEvent,
} from './metrics/host-metrics';
export type { HostStats } from './metrics/host-stats';
export { upstreamStatus } from './metrics/upstream-status';
export { type DiscoveryOptions, discoverAuthorizationServer } from './oauth/discovery';
export { createGuardedFetch, type GuardedFetch, type GuardedFetchOptions } from './oauth/guarded-fetch';
export {
  buildAuthorizationRequest,
  clientCredentialsGrant,
  exchangeAuthorizationCode,
  OAUTH_REQUEST_LIMITS,
  refreshAccessToken,
  revokeToken,
} from './oauth/oauth-client';
export type {
  AuthorizationRequest,
  AuthorizationRequestInput,
  ClientCredentialsInput,
  CodeExchangeInput,
  OAuthClient,
  OAuthClientOptions,
  OAuthServer,
  OAuthServerMetadata,
  OAuthTokens,
  RefreshInput,
  RevokeInput,
  TokenRequestScope,
} from './oauth/oauth-types';
export {
  type AddressGuard,
  type AddressGuardOptions,
  BLOCKED_CIDRS,
  createAddressGuard,
} from './outbound/address-guard';
export { type Cidr, parseCidr } from './outbound/cidr';
export {
  createOutboundPolicy,
  describeOutboundPolicy,
  type OutboundPolicyData,
  type OutboundPolicyOptions,
  type OwnEndpoint,
} from './outbound/outbound-policy';
export {
  createPolicyBook,
  type PolicyBook,
  type PolicyBookOptions,
  type ToolRules,
} from './policies/policy-book';
export {
  DEFAULT_POLICY,
  type DefaultPolicy,
  keyPolicy,
  keyScope,
  parseDefaultPolicy,
  servicePolicy,
} from './policies/policy-input';
export { inScope, keyOverride, type RuledPolicy, toolLabels, toolPolicy } from './policies/policy-rules';
export {
  type CallPolicy,
  type CallPolicyOptions,
  type CallVerdict,
  createCallPolicy,
} from './processes/call-policy';
export type { CallOutcome, OpenedCall } from './processes/call-records';
export { createMemoryProcessStorage } from './processes/memory-process-storage';
export { DELETED_ERROR, INTERRUPTED_ERROR, KILLED_ERROR, SHUTDOWN_ERROR } from './processes/process-errors';
export type { WaitOptions } from './processes/process-input';
export { DEFAULT_HOST_SLOTS, DEFAULT_PROCESS_LIMITS, type ProcessLimits } from './processes/process-limits';
export {
  createProcessManager,
  type LiveStates,
  type ProcessManager,
  type ProcessManagerOptions,
} from './processes/process-manager';
export type {
  ClaimedProcess,
  HostRecord,
  IndexedCall,
  InterruptedScope,
  KillRequest,
  NewProcess,
  ProcessChange,
  ProcessResults,
  ProcessStorage,
  ProcessStorageQuery,
} from './processes/process-storage';
export type { KeyUsage, ProcessQuotaStorage, PruneRule } from './processes/quota-storage';
export { type ProcessActor, scopeProcesses } from './processes/scope-processes';
export {
  CALL_ROW_BYTES,
  PROCESS_ROW_BYTES,
  type StoredTexts,
  storedProcessBytes,
} from './processes/stored-bytes';
export { MAX_REF_LENGTH, MAX_TIMEOUT_MS } from './processes/validate-create-request';
export {
  type LoadedSecretsKey,
  type LoadSecretsKeyOptions,
  loadSecretsKey,
} from './secrets/load-secrets-key';
export { redactingLogger } from './secrets/redacting-logger';
export { createRedactor, REDACTED, type Redactor, type RedactorOptions } from './secrets/redactor';
export { type SealedSecrets, secretsKeyId } from './secrets/secrets-cipher';
export {
  createLocalSignals,
  type HostSignals,
  MAX_SIGNAL_BYTES,
  type SignalTopic,
} from './several-hosts/host-signals';
export type { ProcessHostOptions } from './several-hosts/process-host-options';
export { argumentShape } from './telemetry/argument-shape';
export { ATTR as TRACE_ATTRIBUTES, SPAN as TRACE_SPANS } from './telemetry/attributes';
export {
  createRelayTracerProvider,
  type RelaySampler,
  type RelayTracerOptions,
} from './telemetry/relay-tracer';
export type { RelayedSpan } from './telemetry/relayed-span';
export {
  createSpanBatcher,
  type PackedSpan,
  packSpan,
  type SpanBatcher,
  type SpanBatcherOptions,
} from './telemetry/span-batch';
export { carrierOf, contextOf, type TraceCarrier } from './telemetry/trace-carrier';
export type { TracingOptions } from './telemetry/tracing';
export type { ToolGateway } from './tools/tool-gateway';
export { validateBody } from './validation/body-schema';
export {
  createSchemaChecker,
  type SchemaCheck,
  type SchemaChecker,
  type SchemaCheckerOptions,
  type SchemaCheckerStats,
} from './validation/schema-checker';
