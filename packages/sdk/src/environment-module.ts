import type { ErrorReason } from './api/errors';
import type { DirectCalls } from './direct-calls';
import type { EnvironmentStats } from './environment-stats';
import type { ExecutionExitState, ExecutionInput, ExecutionState, ExecutionUsage } from './execution';
import type { InvokeInput, ToolDocsInput } from './invoke-input';
import type { JSONSchema } from './json-schema';
import type { Module, ModuleSetupContext } from './module';

/** Query of `EnvironmentBindings.discoverServices`. */
export interface DiscoverServicesQuery {
  /** Case-insensitive text matched against id, name and description. */
  query?: string;
}

/** Query of `EnvironmentBindings.discoverTools`. */
export interface DiscoverToolsQuery {
  /** Case-insensitive text matched against tool id, name and description. */
  query?: string;
  /** Restrict to one service. */
  serviceId?: string;
  /** At most this many results (the host caps it). */
  limit?: number;
}

/**
 * Query of `EnvironmentBindings.discoverTypes` and of `GET /environment/types`: the
 * tools whose declarations to render. Both absent: every effectively enabled tool; otherwise the
 * union of the named services' tools and the named tools. Unknown names are a 400 listing them.
 */
export interface TypesSelection {
  /** Service ids: all of their effectively enabled tools. */
  services?: string[];
  /** Qualified tool ids, `<serviceId>.<toolId>`. */
  tools?: string[];
  /**
   * Types asked for by the names their stubs carry (`CyrnelStub<"stripe.customer">`): a shared
   * schema, or a member path of one or of a tool's parameters or result; each with its service's
   * prefix. Names found nowhere are listed in a comment of the answer.
   */
  types?: string[];
  /**
   * Bytes each tool and each type asked for may take (`DEFAULT_TYPES_MAX_BYTES` for a selection,
   * no budget for the whole catalog); beyond it, nested objects and shared schemas become named
   * stubs. What a tool's parameters and result use directly is always written.
   */
  maxBytes?: number;
}

/** Options of {@link EnvironmentModule.generateTypes}: the budget and the types asked for. */
export interface GenerateTypesOptions {
  /** Bytes each tool and each type asked for may take; undefined: no budget (every schema reached declared whole). */
  maxBytes?: number;
  /** Types asked for by the names their stubs carry (see {@link TypesSelection.types}). */
  types?: string[];
  /**
   * Tools the names of `types` are looked up in besides the given ones: for each name, the tool
   * it names (`<service>.<tool>.…`) if there is one, else a tool of its service (for its `schemas`).
   */
  typeSources?: ToolDocsInput[];
  /**
   * Services to declare even when no given tool is theirs (with no tools): a type check declares
   * the services a program names, so a tool it misspells is reported at the tool's name.
   */
  services?: readonly string[];
}

/** A service as discovery reports it (enabled services only). */
export interface DiscoveredService {
  /** Service id, as used in `cyrnel.services.<id>`. */
  id: string;
  /** Human-friendly name. */
  name: string;
  /** What the service is. */
  description: string;
  /** Number of effectively enabled tools. */
  toolCount: number;
}

/** A tool as discovery lists it (effectively enabled tools only, ranked). */
export interface DiscoveredTool {
  /** Service id. */
  serviceId: string;
  /** Tool id. */
  toolId: string;
  /** Human-friendly name. */
  name: string;
  /** What the tool does. */
  description: string;
}

/** One tool described in full by `EnvironmentBindings.describeTool`. */
export interface ToolDescription extends DiscoveredTool {
  /** JSON Schema of the parameters. */
  inputSchema: JSONSchema;
  /** JSON Schema of the result. */
  outputSchema: JSONSchema;
  /**
   * For a tool whose `outputSchema` says nothing: the shape of the results the host has seen
   * (types only, possibly incomplete). Absent otherwise.
   */
  observedOutputSchema?: JSONSchema;
}

/** One tool call found in a program's text by {@link EnvironmentModule.findToolCalls}. */
export interface FoundToolCall {
  /** The service id, written literally in the code. */
  serviceId: string;
  /** The tool id, written literally in the code. */
  toolId: string;
  /** 1-based line of the call in the submitted code. */
  line: number;
}

/** What {@link EnvironmentModule.findToolCalls} found in a program, in the order of the text. */
export interface FoundToolCalls {
  /** Every call site whose service and tool are written literally. */
  calls: FoundToolCall[];
  /** Call sites whose service or tool is computed at run time (`line` and the text, cut at 200 characters). */
  unknown: { line: number; text: string }[];
}

/** A tool named by the code: which service, which tool (both written literally). */
export interface ToolName {
  /** The service id. */
  serviceId: string;
  /** The tool id. */
  toolId: string;
}

/** The declarations a type check needs, as the host answers {@link TypeCheckContext.resolve}. */
export interface ResolvedTools {
  /** The named tools that can be called now (effectively enabled), each service's sharing one `schemas` object. */
  tools: ToolDocsInput[];
  /**
   * The named services that can be called now, also those none of whose named tools exist: an
   * environment declares them (without those tools), so a misspelt tool is reported at its own name.
   */
  services: string[];
}

/** What the host gives {@link EnvironmentModule.checkTypes}. */
export interface TypeCheckContext {
  /**
   * The declarations input of the named tools. Names that are not callable tools are left out
   * (their calls are then the check's errors), never refused.
   */
  resolve(names: readonly ToolName[]): Promise<ResolvedTools>;
}

/** One error of a type check: where in the submitted code (1-based) and what. */
export interface TypeDiagnostic {
  /** 1-based line in the submitted code. */
  line: number;
  /** 1-based column (UTF-16 code units) in that line. */
  column: number;
  /** The compiler's message. */
  message: string;
  /** The compiler's error code (TypeScript's: `2339` for "Property … does not exist on type …"). */
  code: number;
}

/**
 * The callback surface from an environment back into the host. Every call is keyed by the
 * execution id so the host routes it to the right process.
 */
export interface EnvironmentBindings {
  /**
   * Call a tool through the host's invocation gate; rejects with an error carrying `status` and
   * `code`. Resolves to the result, or to a `JsonText` (`isJsonText`: the answer as JSON text,
   * parsed and bounded off the host's main thread by the egress gateway or the adapter) that the
   * environment passes on and parses where the code runs.
   */
  invokeTool(eid: number, input: InvokeInput): Promise<unknown>;
  /** List enabled services. */
  discoverServices(eid: number, query: DiscoverServicesQuery): Promise<DiscoveredService[]>;
  /** List and rank effectively enabled tools. */
  discoverTools(eid: number, query: DiscoverToolsQuery): Promise<DiscoveredTool[]>;
  /** Describe one effectively enabled tool with its schemas; rejects with 404 when unknown. */
  describeTool(eid: number, serviceId: string, toolId: string): Promise<ToolDescription>;
  /**
   * Type declarations of the selected tools, as `GET /environment/types?services=&tools=` renders them
   * (optional). Rejects with 400 listing unknown names.
   */
  discoverTypes?(eid: number, selection: TypesSelection): Promise<string>;
  /**
   * Report the execution's state: `queued` while it waits for a slot, then `running` once its code
   * starts. The process's deadline (`timeoutMs`) counts from `running`; time queued does not count
   * (a run the environment keeps queued while running nothing ends after its timeout plus the
   * host's queue allowance). An environment that reports nothing is running from dispatch. Either
   * report may come at any time, also after an `await` in `execute`.
   */
  setState(eid: number, state: ExecutionState): void;
  /** Append to stdout. Byte chunks may split multi-byte UTF-8 sequences; the host reassembles them. */
  emitStdout(eid: number, chunk: string | Uint8Array): void;
  /** Append to stderr (same rules as stdout). */
  emitStderr(eid: number, chunk: string | Uint8Array): void;
  /**
   * Merge `patch` shallowly into the process output. Throws synchronously, leaving the output as it
   * was, when `patch` is not a plain JSON object or is nested deeper than `MAX_JSON_DEPTH` (400
   * `invalid_request`), or when the merged output would exceed the host's output cap (413
   * `payload_too_large`); an environment turns that into an error its program can catch:
   *
   * ```ts
   * try { bindings.emitOutput(eid, patch); } catch (error) { rejectInSandbox(error); }
   * ```
   *
   * Calls for an execution that already ended are ignored.
   */
  emitOutput(eid: number, patch: Record<string, unknown>): void;
  /**
   * Record why the execution failed. `reason`, optional, is a stable reason of
   * `ERROR_REASONS` for a failure that is not the code's own (the environment's sandbox crashed:
   * `sandbox_crashed`, or another execution crashed it: `sandbox_collateral`); the host records it
   * as the process's `errorReason`. Without one, a failed run has no reason (its code failed).
   *
   * @example
   * ```ts
   * bindings.setError(eid, 'The sandbox process crashed (out of memory)', 'sandbox_crashed');
   * ```
   */
  setError(eid: number, message: string, reason?: ErrorReason): void;
  /**
   * Optional (hosts before it lack it: call it as `bindings.reportUsage?.(…)`): what the
   * environment measured of the execution, reported once before `execute` resolves; a later report
   * replaces an earlier one. The host records `cpuMs` as the run's CPU time (`ProcessMetrics.cpuMs`),
   * as the environment's claim: bounded by the wall time the host measured. Reports for an
   * execution that already ended are ignored.
   *
   * @example
   * ```ts
   * bindings.reportUsage?.(eid, { cpuMs: 12.5 });
   * return 'success';
   * ```
   */
  reportUsage?(eid: number, usage: ExecutionUsage): void;
  /**
   * Optional: channels from an environment's sandbox processes straight to the host's egress
   * gateway, for calls to portable adapters without crossing the host's main thread (see
   * {@link DirectCalls}).
   */
  readonly directCalls?: DirectCalls;
}

/** What an environment receives in `setup`: the module context plus the bindings. */
export interface EnvironmentSetupContext extends ModuleSetupContext {
  /** Callbacks into the host. */
  bindings: EnvironmentBindings;
}

/**
 * A module that runs submitted code. Only one is active; a replaced one drains:
 * `execute` calls in flight finish, `kill` still works, then `teardown`.
 *
 * @example
 * ```ts
 * import type { EnvironmentBindings, EnvironmentModule } from '@cyrnel/sdk';
 * let bindings: EnvironmentBindings | undefined;
 * export const echo: EnvironmentModule = {
 *   async setup(context) { bindings = context.bindings; },
 *   async teardown() { bindings = undefined; },
 *   async execute({ eid, code }) {
 *     bindings?.setState(eid, 'running');
 *     bindings?.emitStdout(eid, code);
 *     return 'success';
 *   },
 *   async kill() {},
 *   async generateDocs() { return '# echo\nPrints the code back.'; },
 *   async generateToolDocs({ serviceId, toolId }) { return `# ${serviceId}.${toolId}`; },
 * };
 * ```
 */
export interface EnvironmentModule extends Module {
  /** Activate with the host bindings. */
  setup(context: EnvironmentSetupContext): Promise<void>;
  /** Run one execution to its end and resolve with how it ended. */
  execute(input: ExecutionInput): Promise<ExecutionExitState>;
  /** Interrupt a queued or running execution; returns promptly. Unknown ids are ignored. */
  kill(eid: number): Promise<void>;
  /** Markdown describing the runtime (globals, limits, patterns). */
  generateDocs(): Promise<string>;
  /** Markdown describing how to call one tool from this runtime. */
  generateToolDocs(input: ToolDocsInput): Promise<string>;
  /**
   * Optional: declarations of the runtime's global for the given tools,
   * served by `GET /environment/types`. The host passes the whole catalog or a selection
   * ({@link TypesSelection}); tools of one service share their `schemas` object, which should
   * become named declarations emitted once and only when a given tool reaches them. `options`
   * bound the text (`maxBytes`) and ask for the types of stubs by name (`types`); an environment
   * that ignores them renders everything whole.
   *
   * @example
   * ```ts
   * await env.generateTypes?.(tools, { maxBytes: DEFAULT_TYPES_MAX_BYTES, types: ['stripe.customer'], typeSources });
   * ```
   */
  generateTypes?(tools: ToolDocsInput[], options?: GenerateTypesOptions): Promise<string>;
  /**
   * Optional: the tool calls a program can make, found in its text without running it (plan
   * approval: `POST /processes` with `plan: true`). Calls whose service or tool is computed at run
   * time are listed as `unknown`. Rejects with 400 `invalid_request` when the code does not parse.
   *
   * @example
   * ```ts
   * await env.findToolCalls?.("await cyrnel.services.github.tools.issues_list.invoke({})");
   * // { calls: [{ serviceId: 'github', toolId: 'issues_list', line: 1 }], unknown: [] }
   * ```
   */
  findToolCalls?(code: string): Promise<FoundToolCalls>;
  /**
   * Optional: type-check a program without running it (`POST /processes` with `check: true`, or
   * `typecheck: 'reject'` before a run), against the declarations of the tools it names (asked of
   * the host through `context.resolve`) and the runtime's globals. Resolves with its errors, an
   * empty list when it type-checks; a syntax error is one of them. Rejects (a `CyrnelError`) when
   * the code cannot be checked at all: too large, or past the check's time or memory bounds.
   *
   * @example
   * ```ts
   * await env.checkTypes?.('const n: number = "one";', { resolve: async () => ({ tools: [], services: [] }) });
   * // [{ line: 1, column: 7, message: "Type 'string' is not assignable to type 'number'.", code: 2322 }]
   * ```
   */
  checkTypes?(code: string, context: TypeCheckContext): Promise<TypeDiagnostic[]>;
  /**
   * Optional: stop (`paused: true`) or restart (`false`) the clock of an execution's deadline while
   * the host holds one of its tool calls for a person's approval; time paused does not count
   * against `timeoutMs`. Unknown ids are ignored. An environment without it counts waiting time.
   */
  pauseDeadline?(eid: number, paused: boolean): void;
  /**
   * Optional: what its sandboxes are doing now (alive, idle, running, waiting for one), read by
   * the host's metrics at every scrape. Must answer at once, without I/O.
   *
   * @example
   * ```ts
   * env.stats?.(); // { sandboxes: 2, idleSandboxes: 1, running: 1, queued: 0, waits: 3, crashes: 0 }
   * ```
   */
  stats?(): EnvironmentStats;
}
