/** States an environment reports for an execution (the host adds `idle` and `terminating`). */
export const EXECUTION_STATES = ['queued', 'running'] as const;
/** A state an environment reports through `EnvironmentBindings.setState`. */
export type ExecutionState = (typeof EXECUTION_STATES)[number];

/** How an execution ended. */
export const EXECUTION_EXIT_STATES = ['failed', 'success', 'timeout', 'canceled'] as const;
/** How an execution ended, as `EnvironmentModule.execute` resolves. */
export type ExecutionExitState = (typeof EXECUTION_EXIT_STATES)[number];

/** Host-side process states: the environment's states plus `idle` and `terminating`. */
export const PROCESS_STATES = ['idle', 'queued', 'running', 'terminating'] as const;
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
}
