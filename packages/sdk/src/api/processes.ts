import type { TypeDiagnostic } from '../environment-module';
import type { ExecutionExitState, ProcessState } from '../execution';
import type { ToolLabel } from '../tool-policy';
import type { ProcessMetrics } from './efficiency';
import type { ErrorCode, ErrorReason } from './errors';
import type { PageQuery } from './lists';
import type { CallDecision } from './policies';

/** A process as `GET /processes/:id` returns it (no code, no outputs). */
export interface ProcessRecord {
  /** Process id; also the execution id the environment sees. */
  id: number;
  /** Optional client label. */
  ref: string | null;
  /** Id of the API key that created it, or null (the `--api-key` key, or a server without keys). */
  keyId: string | null;
  /**
   * The principal whose credentials its tool calls use (the key's), or null (the `--api-key` key,
   * a server without keys): such a run uses shared connections only.
   */
  principalId: string | null;
  /** Host-side state. */
  state: ProcessState;
  /** How the last run ended, or null while unfinished or never run. */
  exitState: ExecutionExitState | null;
  /** Why it failed, timed out or was canceled. */
  error: string | null;
  /**
   * How it ended when not by itself, as a stable reason: `process_timeout`, `process_killed`,
   * `process_interrupted` (the server stopped or shut down first). Null after a success, while
   * unfinished, and when the code failed on its own (its error is in `error`). Branch on this,
   * never on the text of `error`.
   */
  errorReason: ErrorReason | null;
  /**
   * Wall-clock limit of a run in milliseconds. Null only for a process stored by an older server
   * without a deadline; it runs with the server's default.
   */
  timeoutMs: number | null;
  /** Opaque environment configuration. */
  envConfig: Record<string, unknown>;
  /** The connection each service's calls use unless the code names another (service id → name). */
  connections: Record<string, string>;
  /** ISO timestamp. */
  createdAt: string;
  /** ISO timestamp of the last change. */
  updatedAt: string;
  /** ISO timestamp of the start of the last run. */
  startedAt: string | null;
  /** ISO timestamp of the end of the last run. */
  completedAt: string | null;
  /**
   * The host that runs it, or ran it last (`--host-id`; several hosts share a database). Null
   * while it waits in the shared queue for a host, and for a process stored by an older server.
   */
  hostId: string | null;
  /**
   * The data-flow labels of the tools the current or last run called (`private`, `untrusted`,
   * `egress`): once it holds `private` and `untrusted`, its `egress` calls are asked.
   */
  labels: ToolLabel[];
  /** The approval the run waits for (state `waiting`), or null. */
  approvalId: string | null;
  /**
   * What the last run cost and what it kept out of the model's context (tool calls, bytes read
   * from tools and returned, wall and CPU time); null until a run ends.
   */
  metrics: ProcessMetrics | null;
}

/**
 * A process as `GET /processes` lists it: the record without `envConfig`, which only
 * `GET /processes/:id` returns (a page of a hundred configs could be megabytes).
 */
export type ProcessSummary = Omit<ProcessRecord, 'envConfig' | 'connections'>;

/** `POST /processes`. */
export interface CreateProcessRequest {
  /** TypeScript source (at most 100 KiB by default). */
  code: string;
  /** Client label, used as a filter. */
  ref?: string;
  /**
   * Wall-clock limit of a run: positive integer milliseconds up to the server's maximum
   * (`--max-timeout-ms`, default 300000 = 5 min; 400 beyond). Absent or null: the server's default
   * (30000); there is no run without a deadline.
   */
  timeoutMs?: number | null;
  /** Opaque configuration for the environment. */
  envConfig?: Record<string, unknown>;
  /** Queue right away (default) or create idle. */
  autorun?: boolean;
  /**
   * Answer only once the process is idle, with its results; or earlier, with the record, when the
   * run waits for an approval (state `waiting`, `approvalId` set).
   */
  wait?: boolean;
  /**
   * Do not run: answer the plan of the code (`PlanResponse`: the tools it can call with their
   * policies, and a `planId` a person approves once). Not combinable with `planId`, `autorun` or `wait`.
   */
  plan?: boolean;
  /**
   * Do not run: type-check the code and answer its errors (`TypeCheckResponse`, `{ diagnostics }`,
   * an empty list when it type-checks), against the declarations of exactly the tools it names and
   * the sandbox's globals, with `strict` settings. Not combinable with `plan`, `planId`, `autorun`,
   * `wait` or `typecheck`.
   */
  check?: boolean;
  /**
   * Type-check before anything runs: `reject` refuses code with type errors (400 `type_error`, the
   * diagnostics in `details`: a {@link TypeDiagnostic} list) and creates nothing; `off` (default)
   * runs the code unchecked. With `plan: true` a plan of code with type errors is refused the same way.
   */
  typecheck?: TypeCheckMode;
  /**
   * Run the code of an approved plan (exactly the same text) with its tools approved for this
   * process: `409 plan_mismatch` when the code differs, the plan is not approved or another key made it.
   */
  planId?: string;
  /**
   * The connection to use per service (service id → connection name) instead of the principal's
   * own or the shared `default`: `404 connection_not_found` when the service has no such
   * connection, `403 connection_forbidden` when it belongs to another principal.
   */
  connections?: Record<string, string>;
}

/** `typecheck` of `POST /processes`: `off` (default) or `reject` (code with type errors is not run). */
export type TypeCheckMode = 'off' | 'reject';

/** Every {@link TypeCheckMode}. */
export const TYPE_CHECK_MODES = ['off', 'reject'] as const satisfies readonly TypeCheckMode[];

export type { TypeDiagnostic };

/**
 * `POST /processes` with `check: true`: the code's errors, nothing run. Syntax errors when it has
 * any, else its type errors; in the order of the text, at most 100.
 *
 * @example
 * ```json
 * { "diagnostics": [{ "line": 2, "column": 40, "code": 2339,
 *   "message": "Property 'nope' does not exist on type 'github'." }] }
 * ```
 */
export interface TypeCheckResponse {
  /** The errors, empty when the code type-checks. */
  diagnostics: TypeDiagnostic[];
}

/** The results of a finished process, as `POST /processes` with `wait:true` returns them. */
export interface ProcessResult extends ProcessRecord {
  /** The merged `cyrnel.output` object. */
  output: Record<string, unknown>;
  /** Everything written to stdout. */
  stdout: string;
  /** Everything written to stderr. */
  stderr: string;
}

/** `POST /processes` answers either the record or, with `wait:true`, the result. */
export type CreateProcessResponse = ProcessRecord | ProcessResult;

/** Filters of `GET /processes` (newest first). */
export interface ProcessListQuery extends PageQuery {
  /** Only this state. */
  state?: ProcessState;
  /** Only this exit state. */
  exitState?: ExecutionExitState;
  /** Only this label. */
  ref?: string;
  /** Only the processes of this key id (an agent key always sees only its own). */
  keyId?: string;
}

/** `POST /processes/:id/signals/run`. */
export interface RunProcessRequest {
  /** Required when the process has results, which are then cleared. */
  force?: boolean;
}

/** `GET /processes/:id/output`: the merged output object. */
export type ProcessOutput = Record<string, unknown>;

/** One tool call a process made, for audit. */
export interface ToolCallRecord {
  /** Service id as the code addressed it. */
  serviceId: string;
  /** Tool id as the code addressed it. */
  toolId: string;
  /** ISO timestamp. */
  startedAt: string;
  /** Milliseconds from the call to its answer. */
  durationMs: number;
  /**
   * Whether it resolved; null while it waits for its answer, and for a call a host crash
   * interrupted (recorded before its request left, never answered: the upstream may have acted on it).
   */
  ok: boolean | null;
  /** Stable error code when it did not (e.g. `not_found`, `upstream_error`); null while in flight. */
  errorCode: ErrorCode | null;
  /** Stable reason when it did not (e.g. `service_disabled`, `tool_disabled`); null while in flight. */
  errorReason: ErrorReason | null;
  /** How the policies decided it (null: a call recorded by an older server). */
  decision: CallDecision | null;
  /**
   * Bytes of the answer delivered to the program (the UTF-8 length of its JSON text, counted by
   * the host); 0 when the call failed; null while it waits for its answer, for a call a host crash
   * interrupted, and for a call recorded by an older server.
   */
  resultBytes: number | null;
}

/** `GET /processes/:id/calls`. */
export interface ProcessCallsResponse {
  /** The calls in the order they were made. */
  items: ToolCallRecord[];
}

/** Payloads of the Server-Sent Events of `GET /processes/:id/events`, by event name. */
export interface ProcessEventMap {
  /** A state change. */
  state: { state: ProcessState; exitState: ExecutionExitState | null };
  /** A stdout chunk. */
  stdout: { text: string };
  /** A stderr chunk. */
  stderr: { text: string };
  /** A shallow patch merged into the output. */
  output: { patch: Record<string, unknown> };
  /** The run waits at a call for a person's approval (`GET /approvals/:id`). */
  approval: { approvalId: string; serviceId: string; toolId: string };
  /** The end of the run; the stream closes after it. */
  exit: { exitState: ExecutionExitState; error: string | null; errorReason: ErrorReason | null };
}

/** One process event: `type` is the SSE event name, `data` its JSON payload. */
export type ProcessEvent = {
  [K in keyof ProcessEventMap]: { type: K; data: ProcessEventMap[K] };
}[keyof ProcessEventMap];
