/** States an environment reports for an execution (the host adds `idle` and `terminating`). */
export const EXECUTION_STATES = ['queued', 'running'] as const;
/** A state an environment reports through `EnvironmentBindings.setState`. */
export type ExecutionState = (typeof EXECUTION_STATES)[number];

/** How an execution ended. */
export const EXECUTION_EXIT_STATES = ['failed', 'success', 'timeout', 'canceled'] as const;
/** How an execution ended, as `EnvironmentModule.execute` resolves. */
export type ExecutionExitState = (typeof EXECUTION_EXIT_STATES)[number];

/**
 * Host-side process states: the environment's states plus `idle`, `waiting` (running, but paused
 * at a tool call until a person decides its approval; the run's deadline does not count meanwhile)
 * and `terminating`.
 */
export const PROCESS_STATES = ['idle', 'queued', 'running', 'waiting', 'terminating'] as const;
/** A process state as the host stores and reports it. */
export type ProcessState = (typeof PROCESS_STATES)[number];

/** True when `value` is one of {@link EXECUTION_STATES}. */
export function isExecutionState(value: unknown): value is ExecutionState {
  return (EXECUTION_STATES as readonly unknown[]).includes(value);
}

/** True when `value` is one of {@link EXECUTION_EXIT_STATES}. */
export function isExecutionExitState(value: unknown): value is ExecutionExitState {
  return (EXECUTION_EXIT_STATES as readonly unknown[]).includes(value);
}

/** True when `value` is one of {@link PROCESS_STATES}. */
export function isProcessState(value: unknown): value is ProcessState {
  return (PROCESS_STATES as readonly unknown[]).includes(value);
}

/** Options the host passes with every execution. */
export interface ExecutionOptions {
  /**
   * Wall-clock limit in milliseconds; the host also kills at the deadline. The cyrnel host always
   * sends a number (at most its `maxTimeoutMs`); treat null, from other callers, as your default.
   */
  timeoutMs: number | null;
}

/** One execution request: the code of a process and how to run it. */
export interface ExecutionInput {
  /** Execution id (the process id); use it on every binding call. */
  eid: number;
  /** Source code as the client submitted it. */
  code: string;
  /** Execution options. */
  options: ExecutionOptions;
  /** Opaque per-environment configuration from the process request. */
  envConfig: Record<string, unknown>;
  /**
   * Who the execution runs for: the id of the API key that created the process, or
   * {@link ADMIN_TENANT} for a process created without a key (the admin token). Environments that
   * share processes or memory between executions keep executions of different tenants apart, so
   * one tenant's code can neither crash nor observe another's. Absent (older hosts, tests): one
   * shared tenant.
   *
   * @example
   * ```ts
   * await environment.execute({ eid: 7, code, options: { timeoutMs: 30_000 }, envConfig: {}, tenant: '3f9a1c2b7d4e5f60' });
   * ```
   */
  tenant?: string;
}

/**
 * What an environment measured of one execution, reported with `EnvironmentBindings.reportUsage`
 * before `execute` resolves. The host takes it as the environment's claim: it keeps only finite,
 * non-negative numbers and never a CPU time above the wall time it measured itself.
 *
 * @example
 * ```ts
 * bindings.reportUsage?.(eid, { cpuMs: Number(isolate.cpuTime - startedAt) / 1e6 });
 * ```
 */
export interface ExecutionUsage {
  /** Milliseconds of CPU the execution's code used in the sandbox (fractions allowed). */
  cpuMs: number;
}

/**
 * The {@link ExecutionInput.tenant} of processes created without an API key (the admin token):
 * never an API key id, which is 16 hexadecimal characters.
 */
export const ADMIN_TENANT = 'admin';
