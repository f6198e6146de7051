import type { ExecutionExitState } from '@cyrnel/sdk';

/** The per-execution caps on what a program may write and output, in bytes. */
export interface OutputCaps {
  readonly stdoutCapBytes: number;
  readonly stderrCapBytes: number;
  readonly outputCapBytes: number;
}

/** One execution as the host sends it to a sandbox child and a runner receives it. */
export interface RunJob extends OutputCaps {
  readonly code: string;
  readonly timeoutMs: number;
}

/** How a run ended, with the message for `setError` when it failed. */
export interface RunResult {
  readonly exit: ExecutionExitState;
  readonly error?: string;
  /**
   * Milliseconds of CPU the execution's isolate spent (`isolate.cpuTime`), when it could be read.
   * Measured in the sandbox child: the host takes it as the child's claim (see `sandbox-process.ts`).
   */
  readonly cpuMs?: number;
}
