import type { ToolDocsInput, TypesSelection } from '@cyrnel/sdk';
import type {
  ApprovalDetail,
  ApprovalListQuery,
  ApprovalRecord,
  CreateProcessRequest,
  DecideApprovalRequest,
  InstallServiceRequest,
  JsonPatch,
  ListResponse,
  ModuleDetail,
  ModuleListQuery,
  ModuleRecord,
  ModuleUpdateResult,
  PlanResponse,
  ProcessEvent,
  ProcessListQuery,
  ProcessOutput,
  ProcessRecord,
  ProcessResult,
  ProcessSummary,
  RegistryListing,
  RegistrySummary,
  RegistryUpdateResult,
  ReloadModulesResponse,
  ServiceDetail,
  ServiceListQuery,
  ServicePolicy,
  ServiceRecord,
  ServiceRefreshResult,
  ServiceStats,
  ToolCallRecord,
  ToolDetail,
  ToolListQuery,
  ToolRecord,
  TypeCheckResponse,
  UpdateServiceRequest,
} from '@cyrnel/sdk/api';
import type { ConnectionsApi } from '../connections/connections-api';
import type { DownloadDefinitionOptions } from '../definition-source/download-definition';
import type { HostStats } from '../metrics/host-stats';
import type { WaitOptions } from '../processes/process-input';

/**
 * An install request (`InstallServiceRequest`): the definition by `url` (downloaded by the host)
 * or inline as `definition`, exactly one of them.
 */
export type InstallServiceInput = InstallServiceRequest;

/** An update request (`UpdateServiceRequest`): a new definition by `url` or inline, exactly one of them. */
export type UpdateServiceInput = UpdateServiceRequest;

/** Module operations. */
export interface ModulesApi {
  list(query?: ModuleListQuery): Promise<ListResponse<ModuleRecord>>;
  get(moduleId: string): Promise<ModuleDetail>;
  setEnabled(moduleId: string, enabled: boolean): Promise<ModuleDetail>;
  reload(): Promise<ReloadModulesResponse>;
  getConfig(moduleId: string): Promise<Record<string, unknown>>;
  patchConfig(moduleId: string, patch: JsonPatch): Promise<Record<string, unknown>>;
  getSecretsPresent(moduleId: string): Promise<string[]>;
  patchSecrets(moduleId: string, patch: JsonPatch): Promise<void>;
  /** Install a module from npm or a registry (`InstallModuleRequest`); it starts disabled. */
  install(input: unknown): Promise<ModuleDetail>;
  /** Update an installed module to the newest version within its range. */
  update(moduleId: string): Promise<ModuleUpdateResult>;
  /** Change an installed module's version range or auto-update flag (`PatchModuleRequest`). */
  configure(moduleId: string, patch: unknown): Promise<ModuleDetail>;
}

/** Service operations. */
export interface ServicesApi {
  list(query?: ServiceListQuery): Promise<ListResponse<ServiceRecord>>;
  get(serviceId: string): Promise<ServiceDetail>;
  /**
   * Install a service from a definition text or a URL; the request is checked here, once, for
   * every front end. A URL is downloaded with `download` (the caller's outbound policy, size and
   * time limits, abort signal), each over the host's own (`CreateHostOptions.registries`).
   */
  install(input: InstallServiceInput, download?: Partial<DownloadDefinitionOptions>): Promise<ServiceDetail>;
  /** Replace a service's definition (text or URL, downloaded as for `install`); the same text changes nothing. */
  update(
    serviceId: string,
    input: UpdateServiceInput,
    download?: Partial<DownloadDefinitionOptions>,
  ): Promise<ServiceDetail>;
  delete(serviceId: string): Promise<void>;
  setEnabled(serviceId: string, enabled: boolean): Promise<ServiceDetail>;
  /**
   * Whether the host learns the result shapes of the service's tools that declare no output
   * schema (`ServiceRecord.observeOutputs`, on by default). A change forgets every shape learned
   * (off: nothing is kept; on: a fresh start); the same value changes nothing.
   *
   * @example
   * ```ts
   * await host.services.setObserveOutputs('everything', false); // their declarations say `unknown` again
   * ```
   */
  setObserveOutputs(serviceId: string, observe: boolean): Promise<ServiceDetail>;
  getConfig(serviceId: string): Promise<Record<string, unknown>>;
  patchConfig(serviceId: string, patch: JsonPatch): Promise<Record<string, unknown>>;
  getSecretsPresent(serviceId: string): Promise<string[]>;
  patchSecrets(serviceId: string, patch: JsonPatch): Promise<void>;
  /** Install from a registry (`InstallFromRegistryRequest`). */
  installFromRegistry(input: unknown): Promise<ServiceDetail>;
  /** Re-resolve a registry-installed service's entry; an unchanged text changes nothing. */
  updateFromRegistry(serviceId: string): Promise<RegistryUpdateResult>;
  /**
   * List the service's tools again through its adapter's `refreshDefinition` (MCP servers discover their tools live): 409
   * `refresh_not_supported` without one. Tools that remain keep their flag.
   */
  refresh(serviceId: string): Promise<ServiceRefreshResult>;
  /**
   * The efficiency meter of code mode over the service's stored runs (those that called it):
   * calls, bytes read from its tools and returned to the model, wall and CPU time, summed by the
   * storage, so every host sharing the database answers the same. 404 `service_not_found`.
   *
   * @example
   * ```ts
   * const { runs, toolResultBytes, returnedBytes, ratio } = await host.services.stats('shop');
   * ```
   */
  stats(serviceId: string): Promise<ServiceStats>;
}

/** The configured registries. */
export interface RegistriesApi {
  /** Each configured registry, read now. */
  list(): Promise<RegistrySummary[]>;
  /** Every service the configured registries offer. */
  services(): Promise<RegistryListing[]>;
  /** Every module the configured registries offer. */
  modules(): Promise<RegistryListing[]>;
}

/** Tool operations. */
export interface ToolsApi {
  list(query?: ToolListQuery): Promise<ListResponse<ToolRecord>>;
  get(serviceId: string, toolId: string): Promise<ToolDetail>;
  setEnabled(serviceId: string, toolId: string, enabled: boolean): Promise<ToolDetail>;
  /** Markdown from the active environment's `generateToolDocs` (503 without one). */
  docs(serviceId: string, toolId: string): Promise<string>;
  /**
   * Effectively enabled tools as `ToolDocsInput` (each service's tools share one `schemas` object),
   * for type rendering: all of them, or those a selection names (400 listing unknown names).
   */
  docsInputs(selection?: TypesSelection): Promise<ToolDocsInput[]>;
  /**
   * The tools the names of stubs (`TypesSelection.types`, `<serviceId>.<name>`) are looked up in:
   * for each name, the tool it names (`<serviceId>.<toolId>.…`) if it is effectively enabled, else
   * an enabled tool of its service, which carries the service's shared schemas. 400 listing
   * services that are not enabled.
   */
  typeSources(names: readonly string[]): Promise<ToolDocsInput[]>;
}

/** The active environment's documentation (503 without one). */
export interface EnvironmentApi {
  docs(): Promise<string>;
  /**
   * Declarations of every effectively enabled tool (rendered once per catalog state), or of a
   * selection (`?services=a,b&tools=svc.tool`: the union; rendered on demand). Unknown names: 400.
   */
  types(selection?: TypesSelection): Promise<string>;
}

/** Process operations. */
export interface ProcessesApi {
  /**
   * Create (and by default queue) a process; `keyId` is stored as its owner and bounds it per key,
   * `principalId` says whose connections its calls use (null: shared ones only).
   * With `planId`, the code of that approved plan runs with its tools pre-approved (409
   * `plan_mismatch` when the code, the key or the plan's state does not fit). With `typecheck:
   * 'reject'`, code with type errors is refused (400 `type_error`, the diagnostics in `details`)
   * before anything is stored. `plan: true` and `check: true` are refused here: use
   * {@link ProcessesApi.plan} and {@link ProcessesApi.check}.
   */
  create(
    request: Omit<CreateProcessRequest, 'wait'>,
    options?: { keyId?: string | null; principalId?: string | null },
  ): Promise<ProcessRecord>;
  /**
   * The plan of a program without running it (`POST /processes` with `plan: true`): every tool its
   * code can call, found statically, with its policy for `keyId`, and a `planId` a person approves.
   *
   * @example
   * ```ts
   * const plan = await host.processes.plan({ code, plan: true }, { keyId });
   * await host.approvals.decidePlan(plan.planId, { decision: 'approve' }, { keyId: approverId });
   * await host.processes.create({ code, planId: plan.planId }, { keyId });
   * ```
   */
  plan(
    request: Omit<CreateProcessRequest, 'wait'>,
    options?: { keyId?: string | null },
  ): Promise<PlanResponse>;
  /**
   * The type errors of a program without running it (`POST /processes` with `check: true`): the
   * active environment checks it against the declarations of the tools it names and the sandbox's
   * globals. 503 `module_unavailable` when the environment cannot check code.
   *
   * @example
   * ```ts
   * const { diagnostics } = await host.processes.check({ code: 'const n: number = "a";', check: true });
   * // [{ line: 1, column: 7, message: "Type 'string' is not assignable to type 'number'.", code: 2322 }]
   * ```
   */
  check(request: Omit<CreateProcessRequest, 'wait'>): Promise<TypeCheckResponse>;
  /**
   * Resolves with the results once the process is idle. Rejects with a `timeout` error (its
   * `details` hold `{ processId }`) after `timeoutMs`, or once the process has run its own
   * timeout plus `marginMs` (time queued does not count), and with the signal's reason when
   * `signal` aborts.
   */
  wait(id: number, options?: WaitOptions): Promise<ProcessResult>;
  /** A page of processes, newest first; items carry no `envConfig` (only `get` returns it). */
  list(query?: ProcessListQuery): Promise<ListResponse<ProcessSummary>>;
  get(id: number): Promise<ProcessRecord>;
  code(id: number): Promise<string>;
  stdout(id: number): Promise<string>;
  stderr(id: number): Promise<string>;
  output(id: number): Promise<ProcessOutput>;
  calls(id: number): Promise<ToolCallRecord[]>;
  /**
   * Replays the events so far, then streams new ones until `exit`. Returns an unsubscribe
   * function. Rejects with 404 for unknown processes.
   */
  subscribe(id: number, listener: (event: ProcessEvent) => void): Promise<() => void>;
  run(id: number, options?: { force?: boolean }): Promise<ProcessRecord>;
  kill(id: number): Promise<ProcessRecord>;
  delete(id: number): Promise<void>;
  /**
   * End every queued and running process API key `keyId` created, on this host and (through the
   * store) on the others, recorded `canceled` with `errorReason` `key_revoked`: call it once the
   * key is deleted. Answers how many it asked to end; this host's runs are recorded before it
   * resolves, other hosts' when they take the kill (within about a second).
   *
   * @example
   * ```ts
   * await keys.delete(id);
   * await host.processes.revokeKey(id);
   * ```
   */
  revokeKey(keyId: string): Promise<number>;
}

/** Approvals of calls programs wait at, and plans of programs (`/approvals`). */
export interface ApprovalsApi {
  list(query?: ApprovalListQuery): Promise<ListResponse<ApprovalRecord>>;
  get(id: string): Promise<ApprovalDetail>;
  /** Approve or deny a call; `keyId` is recorded as who decided (null: the bootstrap key or an open server). */
  decide(
    id: string,
    body: DecideApprovalRequest,
    options?: { keyId?: string | null },
  ): Promise<ApprovalDetail>;
  /** Approve or deny a plan. */
  decidePlan(
    planId: string,
    body: DecideApprovalRequest,
    options?: { keyId?: string | null },
  ): Promise<ApprovalDetail>;
}

/** The policy rules of services (`/services/:serviceId/policy`). */
export interface PoliciesApi {
  get(serviceId: string): Promise<ServicePolicy>;
  /** Replace a service's rules: unknown policies, annotations, labels (400) or tools (404) are refused. */
  set(serviceId: string, policy: ServicePolicy): Promise<ServicePolicy>;
}

/**
 * The public API of the core host engine: everything the HTTP layer (and any other
 * front end) may use. Created by `createHost`; holds resources until `close()`.
 */
export interface CyrnelHost {
  readonly modules: ModulesApi;
  readonly services: ServicesApi;
  /** The services' named credentials (who may use which; their secrets never shown). */
  readonly connections: ConnectionsApi;
  readonly tools: ToolsApi;
  readonly environment: EnvironmentApi;
  readonly processes: ProcessesApi;
  readonly registries: RegistriesApi;
  readonly approvals: ApprovalsApi;
  readonly policies: PoliciesApi;
  /**
   * A token that changes whenever what agents may see of the catalog can change (a service or
   * tool written, an adapter activated or deactivated, a hydrate failing or recovering): a key for
   * caches of discovery answers.
   *
   * @example
   * ```ts
   * const version = host.catalogVersion();
   * const services = cached?.version === version ? cached.services : await host.services.list();
   * ```
   */
  catalogVersion(): string;
  /**
   * What this host is doing now, for metrics: its runs by state, the shared queue's length, the
   * approvals its runs wait for, the egress gateway's and the validation workers' load, and the
   * active environment's sandboxes.
   *
   * @example
   * ```ts
   * const { processes, sharedQueue } = await host.stats(); // { queued: 0, running: 2, … }, 0
   * ```
   */
  stats(): Promise<HostStats>;
  /** Stop accepting processes, give running ones `graceMs`, kill and record the rest, tear modules down. */
  close(options?: { graceMs?: number }): Promise<void>;
}
