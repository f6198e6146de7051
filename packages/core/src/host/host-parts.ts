import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ModuleLogger } from '@cyrnel/sdk';
import { type Approvals, createApprovals } from '../approvals/approvals';
import { createMemoryApprovalStorage } from '../approvals/memory-approval-storage';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { createAdapterCredentials } from '../connections/connection-adapter-oauth';
import { createDirectCallsHost, type DirectCallsHost } from '../direct-calls/direct-calls-host';
import { createEnvironmentApi } from '../environments/environment-api';
import type { EnvironmentProvider } from '../environments/environment-provider';
import { createTypeCheck } from '../environments/type-check';
import { openJournalDir } from '../gateway/call-journal';
import { createEgressGateway, type EgressGateway } from '../gateway/egress-gateway';
import { guardedHostMetrics } from '../metrics/host-metrics';
import { createModuleRegistry, type ModuleRegistry } from '../modules/module-registry';
import { createOutputObserver, type OutputObserver } from '../observed/output-observer';
import { createPolicyBook, type PolicyBook } from '../policies/policy-book';
import { DEFAULT_POLICY } from '../policies/policy-input';
import { createCallPolicy } from '../processes/call-policy';
import { createProcessManager, type ProcessManager } from '../processes/process-manager';
import type { ProcessStorage } from '../processes/process-storage';
import type { RegistryAccess } from '../registries/service-registries';
import { errorMessage, silentLogger } from '../scoped-logger';
import { redactingLogger } from '../secrets/redacting-logger';
import { createRedactor, type Redactor } from '../secrets/redactor';
import { createSecretsCipher } from '../secrets/secrets-cipher';
import { createSecretsVault } from '../secrets/secrets-vault';
import { createServiceHealth } from '../services/service-health';
import { createServicesApi, type ServicesEngine } from '../services/services-api';
import { announceCatalogChange } from '../several-hosts/catalog-changes';
import { type WatchedCatalog, watchCatalog } from '../several-hosts/catalog-revision';
import { createModulePresence } from '../several-hosts/module-presence';
import { createProcessNeeds } from '../several-hosts/process-needs';
import { createCallable } from '../tools/callable';
import { createSharedSchemasCache } from '../tools/shared-schemas-cache';
import { createToolGateway } from '../tools/tool-gateway-impl';
import { createToolsApi } from '../tools/tools-api';
import { createSchemaChecker, type SchemaChecker } from '../validation/schema-checker';
import type { EnvironmentApi, ToolsApi } from './host-api';
import type { CreateHostOptions } from './host-options';

/** How long an approval waits for a person when the operator set nothing: ten minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 600_000;

/** How long a call waits for this host to hydrate a service another host just enabled. */
const ACTIVATE_TIMEOUT_MS = 10_000;

/** The parts of a host, wired together and not started yet. */
export interface HostParts {
  readonly logger: ModuleLogger;
  /** Every secret the host holds, removed from what leaves it. */
  readonly redactor: Redactor;
  /** The catalog port, watched: every write bumps the revision and is announced. */
  readonly watched: WatchedCatalog;
  readonly catalog: CatalogStorage;
  readonly checker: SchemaChecker;
  /** Every tool's policies, cached per catalog revision. */
  readonly policies: PolicyBook;
  /** Approvals of calls and plans. */
  readonly approvals: Approvals;
  readonly directCalls: DirectCallsHost;
  /** The worker threads portable adapters' calls leave through (closed with the host). */
  readonly egress: EgressGateway;
  readonly environments: EnvironmentProvider;
  readonly processes: ProcessManager;
  /** The storage of processes (the shared queue's length is read there). */
  readonly processStorage: ProcessStorage;
  readonly services: ServicesEngine;
  readonly registry: ModuleRegistry;
  readonly tools: ToolsApi;
  readonly environment: EnvironmentApi;
  /** Learns the result shapes of tools without an output schema from the gate's calls. */
  readonly observer: OutputObserver;
  /** Changes with the catalog, the active adapters and which services failed to hydrate. */
  readonly catalogState: () => string;
}

/**
 * Wire the parts of a host. The module registry is created last, and the parts before it reach
 * it lazily (only once modules run); so does the process manager reach the environment API.
 */
export function createHostParts(
  options: CreateHostOptions,
  access: RegistryAccess,
  hostVersion: string,
): HostParts {
  const { storage } = options;
  const signals = options.host ? storage.signals : undefined;
  // Every write goes through the watched port, so per-revision caches see it. A write is
  // acknowledged only once every sandbox process dropped what direct calls prepared.
  const watched = watchCatalog(storage.catalog, async (target) => {
    await directCalls.changed();
    await announceCatalogChange(signals, options.host?.id, target);
  });
  const { catalog, revision } = watched;
  // Every secret the vault opens or seals is known to the redactor; no log line carries one.
  const redactor = options.redactor ?? createRedactor();
  const logger = redactingLogger(options.logger ?? silentLogger, redactor);
  const now = options.now ?? (() => new Date());
  const { invokeTimeoutMs, moduleSetupTimeoutMs, ...processLimits } = options.limits ?? {};
  const policies = createPolicyBook({
    catalog,
    revision,
    server: options.policies?.default ?? DEFAULT_POLICY,
  });
  const cipher = createSecretsCipher({ key: options.secretsKey, previousKeys: options.previousSecretsKeys });
  const vault = createSecretsVault(catalog, cipher, now, redactor);
  const adapter = (id: string) => registry.adapter(id);
  const checker = createSchemaChecker(options.validation);
  const activeAdapterIds = () => registry.activeAdapterIds();
  const sharedSchemas = createSharedSchemasCache(catalog);
  // Which services this host failed to hydrate: read by the gate, discovery, lists and types.
  const health = createServiceHealth((text) => redactor.redact(text));
  const callable = createCallable({ adapter, activeAdapterIds, health });
  // Rendered declarations change with the catalog, which adapters are active and which services
  // failed to hydrate; so do the calls sandbox processes may make themselves.
  const catalogState = () => `${revision()}:${activeAdapterIds().sort().join(',')}:${health.version()}`;
  const directCalls = createDirectCallsHost({
    catalog,
    sharedSchemas,
    adapter,
    callable,
    revision: catalogState,
    ...(options.outbound ? { outbound: options.outbound } : {}),
  });
  // One way out for portable adapters: sandbox processes and the gate alike call through it.
  const egress = createEgressGateway({
    host: directCalls,
    logger,
    ...(options.egress?.workers === undefined ? {} : { workers: options.egress.workers }),
    ...(options.egress?.answerBytes === undefined
      ? {}
      : { budget: { maxBytes: options.egress.answerBytes } }),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    ...(options.egress?.callJournal ? { journalDir: openJournalDir(options.egress.callJournal) } : {}),
  });
  // Keys holding a secret this host knows never become property names of a learned shape.
  const observer = createOutputObserver({
    catalog,
    state: () => String(revision()),
    logger,
    isSecret: (key) => redactor.redact(key) !== key,
  });
  const gateway = createToolGateway({
    catalog,
    checker,
    sharedSchemas,
    adapter,
    callable,
    egress,
    reauthorize: (instanceId, since) => services.router.reauthorize(instanceId, since),
    // A service enabled on another host a moment ago is hydrated here by the call that needs it.
    hydration: {
      held: (serviceId, instance) => health.hydrated(serviceId, instance),
      activate: (serviceId) => services.activate(serviceId, ACTIVATE_TIMEOUT_MS),
    },
    observe: observer.observe,
    revision,
  });
  const environments = {
    lease: () => registry.environments.lease(),
    active: () => registry.environments.active(),
  };
  const approvalStorage = storage.approvals ?? createMemoryApprovalStorage();
  const approvals = createApprovals({
    storage: approvalStorage,
    now,
    timeoutMs: options.policies?.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    logger,
    ...(options.host ? { hostId: options.host.id } : {}),
    ...(signals ? { signals } : {}),
  });
  const keyStorage = storage.keys;
  const findToolCalls = async (code: string) => {
    const environment = environments.active();
    return environment?.findToolCalls ? await environment.findToolCalls(code) : undefined;
  };
  const calls = createCallPolicy({
    book: policies,
    approvals,
    approvalStorage,
    keyRules: async (keyId) => {
      const row = await keyStorage?.get(keyId);
      return row && { scope: row.scope, policy: row.policy };
    },
    findToolCalls,
  });
  const processes = createProcessManager({
    policies: { calls, approvals, approvalStorage, findToolCalls },
    typeCheck: createTypeCheck({ environments, catalog, sharedSchemas, callable }),
    // The services engine (made below) holds the connections; calls reach it only once runs start.
    connections: {
      route: (run, serviceId, requested) => services.router.route(run, serviceId, requested),
      check: (run) => services.router.check(run),
    },
    storage: storage.processes,
    environments,
    tools: { ...gateway, discoverTypes: (selection) => environment.types(selection) },
    egress,
    ...(options.directToolCalls === false ? { directCalls: false } : {}),
    limits: processLimits,
    logger,
    redactor,
    now,
    metrics: guardedHostMetrics(options.metrics, logger),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    ...(options.host
      ? {
          host: {
            ...options.host,
            ...(signals ? { signals } : {}),
            needs: createProcessNeeds({
              catalog,
              revision,
              environmentId: () => registry.activeEnvironmentId(),
            }),
            modules: () => registry.statuses(),
          },
        }
      : {}),
  });
  const services = createServicesApi({
    catalog,
    vault,
    registry: {
      adapter,
      isKnownAdapter: (id) => registry.isKnownAdapter(id),
      adapterVersion: (id) => registry.adapterVersion(id),
    },
    checker,
    logger,
    now,
    health,
    callable,
    download: access.download,
    afterHydration: () => directCalls.changed(),
    principalExists: async (id) => (await keyStorage?.getPrincipal(id)) !== undefined,
    revision,
    oauth: {
      outbound: options.outbound ?? { check() {} },
      redirectUri: () => options.oauthRedirectUri?.(),
      clientMetadataUrl: () => options.oauthClientMetadataUrl?.(),
      // Unique per host and per start: a lease a crashed start left runs out on its own.
      holder: `${options.host?.id ?? 'host'}:${randomUUID()}`,
      redactor,
    },
  });
  // A call an upstream refused (401) with OAuth tokens: refreshed, and made once more.
  egress.reauthorize((instanceId, since) => services.router.reauthorize(instanceId, since));
  const registry = createModuleRegistry({
    catalog,
    vault,
    redact: (text) => redactor.redact(text),
    checker,
    builtins: options.builtins ?? [],
    modulesDir: options.modulesDir ?? (options.dataDir ? join(options.dataDir, 'modules') : undefined),
    hostVersion,
    logger,
    bindings: processes.bindings,
    deadlines: {
      ...(invokeTimeoutMs === undefined ? {} : { invokeMs: invokeTimeoutMs }),
      ...(moduleSetupTimeoutMs === undefined ? {} : { setupMs: moduleSetupTimeoutMs }),
    },
    ...(options.outbound ? { outbound: options.outbound } : {}),
    now,
    onAdapterActive: async (id, instance) => {
      await services.hydrateAdapter(id, instance);
      await directCalls.changed();
    },
    serviceEvents: { toolsChanged: (serviceId) => services.toolsChanged(serviceId) },
    // Adapters that sign connections in themselves keep what they obtain sealed in each connection's row.
    credentials: createAdapterCredentials({
      catalog,
      vault,
      redactor,
      now,
      redirectUri: () => options.oauthRedirectUri?.(),
      clientMetadataUrl: () => options.oauthClientMetadataUrl?.(),
    }),
    presence: createModulePresence(() => processes.peers()),
    onModulesChanged: () => {
      processes
        .modulesChanged()
        .catch((error: unknown) =>
          logger.error('modules: telling the other hosts failed', { error: errorMessage(error) }),
        );
    },
  });
  const tools = createToolsApi({ catalog, environments, sharedSchemas, callable, policies, now });
  const environment = createEnvironmentApi(environments, tools, catalogState);
  return {
    logger,
    redactor,
    watched,
    catalog,
    checker,
    policies,
    approvals,
    directCalls,
    egress,
    environments,
    processes,
    processStorage: storage.processes,
    services,
    registry,
    tools,
    environment,
    observer,
    catalogState,
  };
}
