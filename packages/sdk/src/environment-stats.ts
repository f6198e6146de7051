/**
 * What an environment's sandboxes are doing now, for the host's metrics (`GET /metrics`): counts
 * at the moment of the call, and two counters since the environment was set up. An environment
 * without sandboxes of its own reports zeros.
 *
 * @example
 * ```ts
 * const stats: EnvironmentStats = { sandboxes: 2, idleSandboxes: 1, running: 1, queued: 0, waits: 3, crashes: 0 };
 * ```
 */
export interface EnvironmentStats {
  /** Sandboxes alive now (the `typescript-ivm` environment: child processes of its pool). */
  readonly sandboxes: number;
  /** Of them, those running no execution now. */
  readonly idleSandboxes: number;
  /** Executions running in a sandbox now. */
  readonly running: number;
  /** Executions waiting for a sandbox now (the pool is full). */
  readonly queued: number;
  /** Executions that had to wait for a sandbox, since setup (only ever grows). */
  readonly waits: number;
  /** Sandboxes that died while the environment was running, since setup (only ever grows). */
  readonly crashes: number;
}
