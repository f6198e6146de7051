import { availableParallelism } from 'node:os';
import type { JSONSchema } from '@cyrnel/sdk';
import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';

/** Module configuration with every default applied. */
export interface ResolvedConfig {
  /** Sandbox processes: executions computing in parallel; the rest await the host or queue FIFO. */
  readonly poolSize: number;
  /** Sandbox processes forked when the environment starts, before any work (at most `poolSize`). */
  readonly warmSandboxes: number;
  /** Executions one sandbox process may host at once while all of them await the host. */
  readonly executionsPerChild: number;
  /** A sandbox process idle this long exits (0: never); work forks it again on demand. */
  readonly idleTimeoutMs: number;
  /** Heap limit of each isolate, in MB. */
  readonly memoryLimitMb: number;
  /** Bytes of stdout kept per execution before truncation. */
  readonly stdoutCapBytes: number;
  /** Bytes of stderr kept per execution before truncation. */
  readonly stderrCapBytes: number;
  /** Bytes of merged `cyrnel.output` JSON allowed per execution. */
  readonly outputCapBytes: number;
  /** Deadline used when an execution arrives with `timeoutMs: null`. */
  readonly defaultTimeoutMs: number;
  /** Deadline of one rendering of type declarations, tool docs or a signature in the render worker. */
  readonly renderTimeoutMs: number;
  /** Deadline of one type check (`checkTypes`) in its worker. */
  readonly typecheckTimeoutMs: number;
  /** Heap limit of the type-check worker, in MB. */
  readonly typecheckMemoryMb: number;
  /** Longest code type-checked, in UTF-8 bytes. */
  readonly typecheckMaxCodeBytes: number;
  /**
   * Sandbox processes send portable adapters' tool calls straight to the host's egress gateway
   * when the host offers it, so neither the call nor its answer crosses the host's main thread.
   */
  readonly directToolCalls: boolean;
}

/** Schema of the module configuration (the host validates and applies defaults). */
export const configSchema: JSONSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    poolSize: {
      type: 'integer',
      minimum: 1,
      maximum: 256,
      description: 'Sandbox processes; default: os.availableParallelism()',
    },
    warmSandboxes: {
      type: 'integer',
      minimum: 0,
      maximum: 256,
      description:
        'Sandbox processes forked when the environment starts, before any work comes (at most poolSize; default: poolSize). The others, and these once idleTimeoutMs stopped them, fork when work comes (≈ 0.1 s each). 0: a server that runs no process forks none.',
    },
    executionsPerChild: {
      type: 'integer',
      minimum: 1,
      maximum: 64,
      default: 8,
      description:
        'Executions of one tenant (API key) one sandbox process may host at once: more than one only while all of them await tool calls or timers, so waiting programs do not hold the CPU slots. A process serves one tenant for its life. A crash of the process ends all of them: those that made no tool call and wrote nothing run again once, the others fail. 1: one execution per process.',
    },
    idleTimeoutMs: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_TIMER_DELAY_MS,
      default: 300_000,
      description:
        'A sandbox process without work for this long exits, so an idle server holds no sandbox memory; the next execution forks one again (≈ 0.1 s). 0: never.',
    },
    memoryLimitMb: { type: 'integer', minimum: 8, maximum: 8192, default: 128 },
    stdoutCapBytes: { type: 'integer', minimum: 0, default: 1_048_576 },
    stderrCapBytes: { type: 'integer', minimum: 0, default: 1_048_576 },
    outputCapBytes: { type: 'integer', minimum: 2, default: 4_194_304 },
    defaultTimeoutMs: { type: 'integer', minimum: 1, default: 30_000 },
    renderTimeoutMs: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TIMER_DELAY_MS,
      default: 60_000,
      description:
        'Deadline of one rendering of type declarations, tool docs or a signature, which run in a worker thread; past it the rendering fails and the worker is replaced.',
    },
    typecheckTimeoutMs: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TIMER_DELAY_MS,
      default: 5_000,
      description:
        'Deadline of one type check (POST /processes with check: true, or typecheck: reject) in its worker thread; past it the check fails (400) and the worker is replaced.',
    },
    typecheckMemoryMb: {
      type: 'integer',
      minimum: 64,
      maximum: 8192,
      default: 512,
      description:
        "Heap limit of the type check's worker thread; past it the check fails (400) and the worker is replaced.",
    },
    typecheckMaxCodeBytes: {
      type: 'integer',
      minimum: 1,
      default: 102_400,
      description: 'Longest code a type check takes, in UTF-8 bytes (413 beyond).',
    },
    directToolCalls: {
      type: 'boolean',
      default: true,
      description:
        "Sandbox processes send the tool calls of portable adapters (openapi) straight to the host's egress gateway (worker threads that hold the credentials, write the audit and bound the answers), so neither the call nor its answer crosses the host's main thread. false: every call goes through the host's gate first (which still calls portable adapters through the gateway).",
    },
  },
};

/** The module has no secrets. */
export const secretsSchema: JSONSchema = { type: 'object', additionalProperties: false, properties: {} };

function intIn(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? value
    : fallback;
}

/** Apply defaults; values outside their range fall back to the default (the host validated already). */
export function resolveConfig(config: Record<string, unknown> = {}): ResolvedConfig {
  const cpus = Math.max(1, availableParallelism());
  const poolSize = intIn(config.poolSize, 1, 256, cpus);
  return {
    poolSize,
    warmSandboxes: Math.min(poolSize, intIn(config.warmSandboxes, 0, 256, poolSize)),
    executionsPerChild: intIn(config.executionsPerChild, 1, 64, 8),
    idleTimeoutMs: intIn(config.idleTimeoutMs, 0, MAX_TIMER_DELAY_MS, 300_000),
    memoryLimitMb: intIn(config.memoryLimitMb, 8, 8192, 128),
    stdoutCapBytes: intIn(config.stdoutCapBytes, 0, Number.MAX_SAFE_INTEGER, 1_048_576),
    stderrCapBytes: intIn(config.stderrCapBytes, 0, Number.MAX_SAFE_INTEGER, 1_048_576),
    outputCapBytes: intIn(config.outputCapBytes, 2, Number.MAX_SAFE_INTEGER, 4_194_304),
    defaultTimeoutMs: intIn(config.defaultTimeoutMs, 1, MAX_TIMER_DELAY_MS, 30_000),
    renderTimeoutMs: intIn(config.renderTimeoutMs, 1, MAX_TIMER_DELAY_MS, 60_000),
    typecheckTimeoutMs: intIn(config.typecheckTimeoutMs, 1, MAX_TIMER_DELAY_MS, 5_000),
    typecheckMemoryMb: intIn(config.typecheckMemoryMb, 64, 8192, 512),
    typecheckMaxCodeBytes: intIn(config.typecheckMaxCodeBytes, 1, Number.MAX_SAFE_INTEGER, 102_400),
    directToolCalls: config.directToolCalls !== false,
  };
}
