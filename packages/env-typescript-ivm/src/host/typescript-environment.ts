import {
  cyrnelError,
  type EnvironmentBindings,
  type EnvironmentModule,
  type ExecutionExitState,
  MAX_TIMER_DELAY_MS,
  type ModuleLogger,
} from '@cyrnel/sdk';
import { type ResolvedConfig, resolveConfig } from './config';
import { resolveDistFile } from './dist-file';
import { performHostCall } from './host-calls';
import { createRenderer, type Renderer } from './renderer';
import { generateRuntimeDocs } from './runtime-docs';
import { createSandboxPool, type SandboxPool } from './sandbox-pool';
import { createTypeChecker, type TypeChecker } from './type-checker';

/**
 * The patch of a child's `output` message (a JSON array of `[key, value]` entries) as an object
 * without a prototype: V8 keeps such an object as a dictionary, so hundreds of keys cost no new
 * object shape each, and a `__proto__` key is an own property like any other.
 */
function outputPatch(json: string): Record<string, unknown> {
  const patch: Record<string, unknown> = Object.create(null);
  for (const [key, value] of JSON.parse(json) as [string, unknown][]) patch[key] = value;
  return patch;
}

/** Options of {@link createTypescriptEnvironment}. */
export interface TypescriptEnvironmentOptions {
  /** Path of the built sandbox child script; defaults to `sandbox-child.js` beside this file or in `dist/`. */
  readonly childPath?: string;
  /** Path of the built render worker; defaults to `render-worker.js` beside this file or in `dist/`. */
  readonly renderWorkerPath?: string;
  /** Path of the built type-check worker; defaults to `check-worker.js` beside this file or in `dist/`. */
  readonly checkWorkerPath?: string;
}

/** Locate the built child entry: beside the bundle in `dist/`, or in the package's `dist/` when running from `src/`. */
export function resolveChildPath(): string {
  return resolveDistFile('sandbox-child.js');
}

interface Active {
  readonly bindings: EnvironmentBindings;
  readonly config: ResolvedConfig;
  readonly pool: SandboxPool;
  readonly logger: ModuleLogger;
}

function guard(logger: ModuleLogger, what: string, fn: () => void) {
  try {
    fn();
  } catch (error) {
    logger.warn(`bindings.${what} threw`, { error: error instanceof Error ? error.message : String(error) });
  }
}

/** Create a not yet set-up `typescript-ivm` environment. */
export function createTypescriptEnvironment(options: TypescriptEnvironmentOptions = {}): EnvironmentModule {
  let active: Active | undefined;
  // Started on the first rendering (with the config of that time), closed by `setup` and `teardown`.
  let renderer: Renderer | undefined;
  const rendering = (): Renderer => {
    renderer ??= createRenderer({
      workerPath: options.renderWorkerPath ?? resolveDistFile('render-worker.js'),
      timeoutMs: (active?.config ?? resolveConfig()).renderTimeoutMs,
    });
    return renderer;
  };
  // Started on the first type check, closed by `setup` and `teardown` like the renderer.
  let checker: TypeChecker | undefined;
  const checking = (): TypeChecker => {
    const config = active?.config ?? resolveConfig();
    checker ??= createTypeChecker({
      workerPath: options.checkWorkerPath ?? resolveDistFile('check-worker.js'),
      timeoutMs: config.typecheckTimeoutMs,
      memoryLimitMb: config.typecheckMemoryMb,
      maxCodeBytes: config.typecheckMaxCodeBytes,
      idleTimeoutMs: config.idleTimeoutMs === 0 ? MAX_TIMER_DELAY_MS : config.idleTimeoutMs,
      findToolCalls: (code) => rendering().toolCalls(code),
    });
    return checker;
  };
  const stopRendering = () => {
    renderer?.close();
    renderer = undefined;
    checker?.close();
    checker = undefined;
  };

  return {
    async setup({ config, logger, bindings }) {
      if (active) await active.pool.close();
      stopRendering();
      const resolved = resolveConfig(config);
      const direct = resolved.directToolCalls ? bindings.directCalls : undefined;
      const pool: SandboxPool = createSandboxPool({
        // Each sandbox process gets its own channel to the host's egress gateway; a call made
        // through it marks the execution as having acted (a crash then does not run it again).
        ...(direct ? { openEgress: () => direct.open({ onCall: (eid) => pool.touched(eid) }) } : {}),
        size: resolved.poolSize,
        warm: resolved.warmSandboxes,
        executionsPerChild: resolved.executionsPerChild,
        memoryLimitMb: resolved.memoryLimitMb,
        idleTimeoutMs: resolved.idleTimeoutMs,
        childPath: options.childPath ?? resolveChildPath(),
        onChildStart: ({ pid }) => logger.debug('sandbox process started', { pid }),
        onChildExit: ({ pid, code, signal, respawnDelayMs }) =>
          logger.info('sandbox process exited; replacing it', { pid, code, signal, respawnDelayMs }),
        onChildRetire: ({ pid, why }) =>
          why === 'idle'
            ? logger.debug('sandbox process stopped after idling', {
                pid,
                idleTimeoutMs: resolved.idleTimeoutMs,
              })
            : logger.debug('sandbox process stopped to make room for another tenant', { pid }),
      });
      active = { bindings, config: resolved, pool, logger };
    },

    async execute(input): Promise<ExecutionExitState> {
      const env = active;
      if (!env) throw new Error('typescript-ivm: execute called before setup');
      const { bindings, config, logger } = env;
      const { eid } = input;
      const requested = input.options?.timeoutMs;
      const timeoutMs =
        typeof requested === 'number' && Number.isFinite(requested) && requested > 0
          ? Math.min(requested, MAX_TIMER_DELAY_MS)
          : config.defaultTimeoutMs;
      guard(logger, 'setState', () => bindings.setState(eid, 'queued'));
      if (typeof input.code !== 'string') {
        guard(logger, 'setError', () => bindings.setError(eid, 'code must be a string'));
        return 'failed';
      }
      // Executions of different tenants (API keys) never share a sandbox process.
      const tenant = typeof input.tenant === 'string' ? input.tenant : '';
      const result = await env.pool.run(
        eid,
        {
          code: input.code,
          timeoutMs,
          stdoutCapBytes: config.stdoutCapBytes,
          stderrCapBytes: config.stderrCapBytes,
          outputCapBytes: config.outputCapBytes,
        },
        {
          started: () => guard(logger, 'setState', () => bindings.setState(eid, 'running')),
          call: (kind, args) =>
            performHostCall(bindings, eid, kind, args, (tool) => rendering().signature(tool)),
          write: (stream, text) =>
            guard(logger, 'emit', () =>
              stream === 'stdout' ? bindings.emitStdout(eid, text) : bindings.emitStderr(eid, text),
            ),
          output: (json) => guard(logger, 'emitOutput', () => bindings.emitOutput(eid, outputPatch(json))),
        },
        tenant,
      );
      // The isolate's CPU time as the sandbox child measured it (a claim the host bounds).
      const { cpuMs } = result;
      if (cpuMs !== undefined) guard(logger, 'reportUsage', () => bindings.reportUsage?.(eid, { cpuMs }));
      if (result.error !== undefined) {
        const { error: message, reason } = result;
        guard(logger, 'setError', () =>
          reason === undefined ? bindings.setError(eid, message) : bindings.setError(eid, message, reason),
        );
      }
      return result.exit;
    },

    async kill(eid) {
      active?.pool.kill(eid);
    },

    pauseDeadline(eid, paused) {
      active?.pool.pauseDeadline(eid, paused === true);
    },

    stats() {
      return (
        active?.pool.stats() ?? {
          sandboxes: 0,
          idleSandboxes: 0,
          running: 0,
          queued: 0,
          waits: 0,
          crashes: 0,
        }
      );
    },

    async findToolCalls(code) {
      if (typeof code !== 'string') throw cyrnelError('invalid_request', 'code must be a string');
      // In a worker thread: the parser recurses as deep as the code nests.
      return rendering().toolCalls(code);
    },

    async checkTypes(code, context) {
      // In a worker thread holding a warm language service, under a deadline and a heap limit.
      return checking().check(code, context);
    },

    async generateDocs() {
      return generateRuntimeDocs(active?.config ?? resolveConfig());
    },

    async generateToolDocs(input) {
      return rendering().toolDocs(input);
    },

    async generateTypes(tools, options) {
      return rendering().types(tools, options);
    },

    async teardown() {
      const env = active;
      active = undefined;
      stopRendering();
      await env?.pool.close();
    },
  };
}
