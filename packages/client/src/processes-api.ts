import {
  API_ROUTES,
  type CreateProcessRequest,
  type CreateProcessResponse,
  type ListResponse,
  type PlanResponse,
  type ProcessCallsResponse,
  type ProcessEvent,
  type ProcessListQuery,
  type ProcessOutput,
  type ProcessRecord,
  type ProcessResult,
  type ProcessSummary,
  type RunProcessRequest,
  type TypeCheckResponse,
} from '@cyrnel/sdk/api';
import { CyrnelProcessError } from './errors';
import { paginate } from './paginate';
import { type ProcessEventsOptions, processEvents } from './process-events';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';
import type { Transport } from './transport';

/**
 * Options of `processes.run()`: the process options (`timeoutMs` here is the **process**
 * timeout the server enforces, as in `POST /processes`), an abort signal, the HTTP deadline
 * and whether failures throw.
 */
export type RunProcessOptions = Omit<CreateProcessRequest, 'code' | 'wait' | 'autorun' | 'plan' | 'check'> & {
  /** Aborts the wait (the process itself keeps running on the server; kill it if needed). */
  signal?: AbortSignal;
  /**
   * Deadline of the waiting HTTP call (`0`: none). Default none: time queued is unknown to the
   * client, and the server bounds the wait by the process's timeout plus a margin.
   */
  requestTimeoutMs?: number;
  /** Throw a {@link CyrnelProcessError} when the process ends `failed` or `timeout`. Default false. */
  throwOnFailure?: boolean;
};

/** `/processes` endpoints plus `run()` and `events()`. */
export interface ProcessesApi {
  /** `POST /processes` with `plan:true`: the plan of the code (what it can call), nothing run. */
  create(request: CreateProcessRequest & { plan: true }, options?: RequestOptions): Promise<PlanResponse>;
  /** `POST /processes` with `check:true`: the code's type errors, nothing run. */
  create(
    request: CreateProcessRequest & { check: true },
    options?: RequestOptions,
  ): Promise<TypeCheckResponse>;
  /**
   * `POST /processes` with `wait:true`: answers once idle, with output, stdout, stderr and error;
   * or earlier, with the results so far, when the run waits for a person's approval (state
   * `waiting`, `approvalId` set).
   */
  create(request: CreateProcessRequest & { wait: true }, options?: RequestOptions): Promise<ProcessResult>;
  /**
   * `POST /processes`: the new process, queued (or idle with `autorun:false`). With
   * `typecheck: 'reject'`, code with type errors throws `CyrnelHttpError` 400 `type_error` (the
   * diagnostics in `details`) and nothing is created.
   */
  create(
    request: CreateProcessRequest & { wait?: false; plan?: false; check?: false },
    options?: RequestOptions,
  ): Promise<ProcessRecord>;
  /** `POST /processes`. */
  create(
    request: CreateProcessRequest,
    options?: RequestOptions,
  ): Promise<CreateProcessResponse | PlanResponse | TypeCheckResponse>;
  /**
   * Run code and wait for its result (`POST /processes` with `wait:true`). A run that waits for
   * a person's approval keeps being waited for: the server answers early (state `waiting`), and
   * `run` follows the process's events to its end, then reads its results.
   * @example
   * const { output } = await client.processes.run('cyrnel.output({ sum: 1 + 2 })', { throwOnFailure: true });
   */
  run(code: string, options?: RunProcessOptions): Promise<ProcessResult>;
  /**
   * The plan of `code` (`POST /processes` with `plan:true`): the tools it can call with their
   * policies and lines, the call sites whose tool is computed at run time, and a `planId` a
   * person approves once (`approvals.decidePlan`); nothing runs.
   *
   * @example
   * ```ts
   * const plan = await client.processes.plan(code);
   * if (plan.tools.every((tool) => tool.effectivePolicy === 'allow')) await client.processes.run(code);
   * else console.log(`approve plan ${plan.planId}, then run(code, { planId })`);
   * ```
   */
  plan(code: string, options?: RequestOptions): Promise<PlanResponse>;
  /**
   * The type errors of `code` (`POST /processes` with `check:true`), nothing run: against the
   * declarations of the tools it names and the sandbox's globals, `strict`. Each diagnostic has a
   * 1-based `line` and `column` in `code`, the compiler's `message` and its error `code`; an empty
   * list means it type-checks. `run(code, { typecheck: 'reject' })` checks and runs in one request.
   *
   * @example
   * ```ts
   * const { diagnostics } = await client.processes.check(code);
   * for (const d of diagnostics) console.log(`${d.line}:${d.column} TS${d.code} ${d.message}`);
   * ```
   */
  check(code: string, options?: RequestOptions): Promise<TypeCheckResponse>;
  /** `GET /processes`: one page, newest first. */
  list(query?: ProcessListQuery, options?: RequestOptions): Promise<ListResponse<ProcessSummary>>;
  /** Every process matching `query`, newest first, page after page. */
  iterate(
    query?: ProcessListQuery,
    options?: RequestOptions,
  ): AsyncGenerator<ProcessSummary, void, undefined>;
  /** `GET /processes/:id`. */
  get(id: number, options?: RequestOptions): Promise<ProcessRecord>;
  /** `GET /processes/:id/code`. */
  code(id: number, options?: RequestOptions): Promise<string>;
  /** `GET /processes/:id/stdout` (409 while not idle). */
  stdout(id: number, options?: RequestOptions): Promise<string>;
  /** `GET /processes/:id/stderr` (409 while not idle). */
  stderr(id: number, options?: RequestOptions): Promise<string>;
  /** `GET /processes/:id/output` (409 while not idle). */
  output(id: number, options?: RequestOptions): Promise<ProcessOutput>;
  /** `GET /processes/:id/calls`: the tool calls it made. */
  calls(id: number, options?: RequestOptions): Promise<ProcessCallsResponse>;
  /** `GET /processes/:id/events` as an async iterator ending after `exit`; reconnects with replay. */
  events(id: number, options?: ProcessEventsOptions): AsyncGenerator<ProcessEvent, void, undefined>;
  /** `POST /processes/:id/signals/run`: run an idle process (again; `force` when it has results). */
  start(id: number, request?: RunProcessRequest, options?: RequestOptions): Promise<ProcessRecord>;
  /** `POST /processes/:id/signals/kill`: idempotent while live; 409 once idle. */
  kill(id: number, options?: RequestOptions): Promise<ProcessRecord>;
  /** `DELETE /processes/:id` (idle only, 204). */
  delete(id: number, options?: RequestOptions): Promise<void>;
}

const routes = API_ROUTES.processes;

/** Build the `processes` group over the route caller (events read the transport's streams). */
export function createProcessesApi(call: RouteCaller, transport: Transport): ProcessesApi {
  const list: ProcessesApi['list'] = (query, options) => call(routes.list, { query }, options);

  // A waiting create must outlive the process, queue time included, which only the server
  // knows: it answers by the process's timeout plus a margin counted from the start of the run
  // (a 504 naming the process otherwise), so the client sets no deadline of its own.
  const create = <T extends CreateProcessResponse | PlanResponse | TypeCheckResponse>(
    request: CreateProcessRequest,
    options: RequestOptions = {},
  ): Promise<T> =>
    call(
      routes.create,
      { body: request },
      request.wait === true && options.timeoutMs === undefined ? { ...options, timeoutMs: 0 } : options,
    ) as Promise<T>;

  // The run waits for a person: its events end with `exit` once it finished, whatever they decided.
  const resultAfterApproval = async (id: number, signal: AbortSignal | undefined): Promise<ProcessResult> => {
    const options = signal ? { signal } : {};
    for await (const _ of processEvents(transport, id, options)) {
      // Read to the exit event.
    }
    const [record, output, stdout, stderr] = await Promise.all([
      call(routes.get, { params: { id } }, options),
      call(routes.output, { params: { id } }, options),
      call(routes.stdout, { params: { id } }, options),
      call(routes.stderr, { params: { id } }, options),
    ]);
    return { ...record, output, stdout, stderr };
  };

  return {
    create,
    run: async (code, options = {}) => {
      const { signal, throwOnFailure, requestTimeoutMs, ...rest } = options;
      const answer = await create<ProcessResult>(
        { ...rest, code, wait: true },
        {
          ...(signal ? { signal } : {}),
          ...(requestTimeoutMs !== undefined ? { timeoutMs: requestTimeoutMs } : {}),
        },
      );
      const result = answer.state === 'idle' ? answer : await resultAfterApproval(answer.id, signal);
      if (throwOnFailure === true && (result.exitState === 'failed' || result.exitState === 'timeout')) {
        throw new CyrnelProcessError(result);
      }
      return result;
    },
    plan: (code, options) => create<PlanResponse>({ code, plan: true }, options),
    check: (code, options) => create<TypeCheckResponse>({ code, check: true }, options),
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    get: (id, options) => call(routes.get, { params: { id } }, options),
    code: (id, options) => call(routes.code, { params: { id } }, options),
    stdout: (id, options) => call(routes.stdout, { params: { id } }, options),
    stderr: (id, options) => call(routes.stderr, { params: { id } }, options),
    output: (id, options) => call(routes.output, { params: { id } }, options),
    calls: (id, options) => call(routes.calls, { params: { id } }, options),
    events: (id, options) => processEvents(transport, id, options),
    start: (id, request = {}, options) => call(routes.start, { params: { id }, body: request }, options),
    kill: (id, options) => call(routes.kill, { params: { id }, body: {} }, options),
    delete: (id, options) => call(routes.delete, { params: { id } }, options),
  };
}
