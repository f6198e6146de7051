import type { TraceCarrier } from '@cyrnel/core';
import type { DiscoveredService, TypesSelection } from '@cyrnel/sdk';
import type {
  ApprovalDetail,
  DecideApprovalRequest,
  ListResponse,
  PageQuery,
  ProcessEvent,
  ProcessOutput,
  ProcessRecord,
  ProcessResult,
  ProcessSummary,
  ToolCallRecord,
  ToolListQuery,
  ToolRecord,
  TypeCheckMode,
  TypeCheckResponse,
} from '@cyrnel/sdk/api';

/**
 * What cyrnel's MCP server needs of a cyrnel: the agent surface only (find tools, read their
 * types and docs, run code, read and kill its processes), never an admin operation, so an MCP
 * client can do no more than its key can on `/processes`.
 *
 * The in-process host and `@cyrnel/client` have this shape already, but for five operations
 * each answers its own way: `processes.calls` (the HTTP API pages them), `processes.settle`
 * (the host waits on the run, the client polls), `processes.check` (a request to the host, a
 * code to the client), `processes.events` (a subscription, a stream) and `services` (an agent
 * key may not list services over HTTP). {@link createHostBackend} and {@link createClientBackend} add those; what
 * the MCP tools make of the answers is written once, over this interface.
 */
export interface McpBackend {
  readonly tools: {
    /** Ranked tools, as `GET /tools?query=` ranks them. */
    list(query: ToolListQuery): Promise<ListResponse<ToolRecord>>;
    /** One tool; rejects when it does not exist. */
    get(serviceId: string, toolId: string): Promise<ToolRecord>;
    /** One tool's docs (Markdown). */
    docs(serviceId: string, toolId: string): Promise<string>;
  };
  readonly environment: {
    /** The environment's runtime docs (Markdown). */
    docs(): Promise<string>;
    /** Declarations of the selected tools, or of every effectively enabled one. */
    types(selection?: TypesSelection): Promise<string>;
  };
  readonly processes: {
    /**
     * Create and start a process; with `typecheck: 'reject'`, code with type errors is refused
     * (`type_error`). `trace`: the MCP caller's trace context, which a client of a server sends
     * on (`traceparent`); a host runs the process in the active context, which already continues it.
     */
    create(
      request: {
        readonly code: string;
        readonly timeoutMs?: number;
        readonly typecheck?: TypeCheckMode;
      },
      trace?: TraceCarrier,
    ): Promise<ProcessRecord>;
    /** The code's type errors, nothing run (`POST /processes` with `check: true`). */
    check(code: string): Promise<TypeCheckResponse>;
    get(id: number): Promise<ProcessRecord>;
    /** Results of an idle process. */
    output(id: number): Promise<ProcessOutput>;
    stdout(id: number): Promise<string>;
    stderr(id: number): Promise<string>;
    /** The tool calls it made so far. */
    calls(id: number): Promise<readonly ToolCallRecord[]>;
    /** Kill a queued or running process. */
    kill(id: number): Promise<unknown>;
    /** A page of the processes the caller may read, newest first. */
    list(query: PageQuery & { readonly keyId?: string }): Promise<ListResponse<ProcessSummary>>;
    /**
     * The events of a process, replayed from its start, until its exit or until `signal` aborts
     * (then the iteration ends quietly).
     */
    events(id: number, signal: AbortSignal): AsyncIterable<ProcessEvent>;
    /**
     * Wait until the process is idle, waits for a person's approval (state `waiting`) other than
     * `reportedApproval`, `timeoutMs` has passed or `signal` aborts; then its record (a result,
     * with output, stdout and stderr so far, when the wait brought them). Never rejects for the
     * wait running out.
     */
    settle(id: number, options: SettleOptions): Promise<ProcessRecord | ProcessResult>;
  };
  /** The services agents can call now (enabled and hydrated). */
  services(): Promise<readonly DiscoveredService[]>;
  /**
   * A token that changes whenever what agents see of the catalog can change (the host's
   * `catalogVersion()`, or a server's `GET /tools/version`); absent, or undefined where nothing
   * cheap tells it (a server older than that route), and then what the catalog renders to is
   * compared instead.
   */
  catalogVersion?(): string | undefined | Promise<string | undefined>;
  /**
   * The key id of the caller, when known: its own processes are those this key created (an admin
   * may read every key's, but another key's run is never its task). Undefined: every process the
   * caller may read is its own (an agent key's, a single-user host's).
   */
  readonly owner?: string | null;
  /**
   * Reading and deciding the approvals runs wait for, as the caller: present only when the
   * caller may decide them (an admin or an approver key, never an agent's, which may not approve
   * its own calls). Without it, a waiting run is answered with where a person approves it.
   */
  readonly approvals?: {
    /** An approval with what a person needs to decide it (parameters without secrets, the code). */
    get(id: string): Promise<ApprovalDetail>;
    /** Approve or deny it, recorded as decided by the caller's key. */
    decide(id: string, body: DecideApprovalRequest): Promise<ApprovalDetail>;
  };
}

/** Options of `McpBackend.processes.settle`. */
export interface SettleOptions {
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /**
   * An approval already reported or decided: the run waiting for it does not end the wait (it
   * ends when the run goes on and ends, or waits for another approval).
   */
  readonly reportedApproval?: string | undefined;
}

/** The operations a host and a client answer alike: everything but `calls`, `settle`, `check` and `events`. */
type SharedProcessOperations = Omit<
  McpBackend['processes'],
  'calls' | 'settle' | 'check' | 'events' | 'create'
> & {
  create(request: Parameters<McpBackend['processes']['create']>[0]): Promise<ProcessRecord>;
};

/**
 * Pick, one by one, the operations of a host or a client that an agent may use as they are: the
 * tool and environment reads and the process operations both answer alike. Everything else of
 * those APIs (enabling tools, keys…) is the admin's, never MCP's.
 *
 * @example
 * ```ts
 * const backend: McpBackend = {
 *   ...agentOperations(host, processes),
 *   processes: { ...agentOperations(host, processes).processes, calls, settle },
 *   services,
 * };
 * ```
 */
export function agentOperations(
  source: Pick<McpBackend, 'tools' | 'environment'>,
  processes: SharedProcessOperations,
): Pick<McpBackend, 'tools' | 'environment'> & { readonly processes: SharedProcessOperations } {
  const { tools, environment } = source;
  return {
    tools: {
      list: (query) => tools.list(query),
      get: (serviceId, toolId) => tools.get(serviceId, toolId),
      docs: (serviceId, toolId) => tools.docs(serviceId, toolId),
    },
    environment: {
      docs: () => environment.docs(),
      types: (selection) => environment.types(selection),
    },
    processes: {
      create: (request) => processes.create(request),
      get: (id) => processes.get(id),
      output: (id) => processes.output(id),
      stdout: (id) => processes.stdout(id),
      stderr: (id) => processes.stderr(id),
      kill: (id) => processes.kill(id),
      list: (query) => processes.list(query),
    },
  };
}
