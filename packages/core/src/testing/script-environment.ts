import type { EnvironmentBindings, EnvironmentModule, ErrorReason, ExecutionExitState } from '@cyrnel/sdk';

/** Options of {@link createScriptEnvironment}. */
export interface ScriptEnvironmentOptions {
  /** Executions running at once; the rest wait FIFO (reported `queued`). Default 2. */
  readonly poolSize?: number;
  /** Never resolve `execute` and ignore `kill` and timeouts: the host must cope alone. */
  readonly hang?: boolean;
  /** Report `queued`, then never start, never resolve `execute` and ignore `kill`. */
  readonly stall?: boolean;
  /** Report `queued` only after an `await` (an environment whose own queue is asynchronous). */
  readonly lateQueue?: boolean;
}

/** The test environment plus what the tests inspect. */
export interface ScriptEnvironment extends EnvironmentModule {
  /** Ids whose code actually started. */
  readonly started: number[];
  /** Ids `kill` was called with. */
  readonly killed: number[];
  /** The `tenant` each execution arrived with, by id. */
  readonly tenants: Map<number, string | undefined>;
}

/** What `cyrnel.fail(message, reason)` throws: the run fails with `setError(eid, message, reason)`. */
const FAILURE_REASON = Symbol('failure reason');

type Script = (cyrnel: Record<string, unknown>) => Promise<unknown>;
const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => Script;

/**
 * Test scaffolding for the host's environment port: runs code as an async function of a small
 * `cyrnel` object in the test process itself. Not a sandbox; the real one is typescript-ivm.
 */
export function createScriptEnvironment(options: ScriptEnvironmentOptions = {}): ScriptEnvironment {
  const poolSize = options.poolSize ?? 2;
  const queue: { start: () => void; canceled: boolean }[] = [];
  const kills = new Map<number, () => void>();
  const started: number[] = [];
  const killed: number[] = [];
  const tenants = new Map<number, string | undefined>();
  let bindings: EnvironmentBindings | undefined;
  let busy = 0;

  const release = () => {
    busy--;
    let next = queue.shift();
    while (next?.canceled) next = queue.shift();
    if (next) {
      busy++;
      next.start();
    }
  };

  return {
    started,
    killed,
    tenants,
    async setup(context) {
      bindings = (context as { bindings: EnvironmentBindings }).bindings;
    },
    async teardown() {
      bindings = undefined;
    },
    async execute({ eid, code, tenant }): Promise<ExecutionExitState> {
      tenants.set(eid, tenant);
      const host = bindings as EnvironmentBindings;
      if (options.hang) {
        host.setState(eid, 'running');
        return new Promise<never>(() => {});
      }
      if (options.stall) {
        host.setState(eid, 'queued');
        return new Promise<never>(() => {});
      }
      if (options.lateQueue) await new Promise((resolve) => setImmediate(resolve));
      host.setState(eid, 'queued');
      const killedWhileQueued = await new Promise<boolean>((resolve) => {
        if (busy < poolSize) {
          busy++;
          resolve(false);
          return;
        }
        const waiter = { start: () => resolve(false), canceled: false };
        queue.push(waiter);
        kills.set(eid, () => {
          waiter.canceled = true;
          resolve(true);
        });
      });
      kills.delete(eid);
      if (killedWhileQueued) return 'canceled';
      started.push(eid);
      host.setState(eid, 'running');
      const cyrnel = {
        output: (patch: Record<string, unknown>) => host.emitOutput(eid, patch),
        log: (...args: unknown[]) => host.emitStdout(eid, `${args.join(' ')}\n`),
        error: (...args: unknown[]) => host.emitStderr(eid, `${args.join(' ')}\n`),
        bytes: (bytes: number[]) => host.emitStdout(eid, new Uint8Array(bytes)),
        invoke: (serviceId: string, toolId: string, parameters: Record<string, unknown>) =>
          host.invokeTool(eid, { serviceId, toolId, parameters }),
        sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
        // What an environment measured of the run (its claim): `reportUsage`.
        report: (usage: { cpuMs: number }) => host.reportUsage?.(eid, usage),
        // A failure that is not the code's own, as an environment reports it (a crashed sandbox).
        fail: (message: string, reason: ErrorReason) => {
          throw Object.assign(new Error(message), { [FAILURE_REASON]: reason });
        },
      };
      const killSignal = new Promise<ExecutionExitState>((resolve) => {
        kills.set(eid, () => resolve('canceled'));
      });
      try {
        const run = new AsyncFunction('cyrnel', code)(cyrnel).then(() => 'success' as const);
        return await Promise.race([run, killSignal]);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const reason = (error as { [FAILURE_REASON]?: ErrorReason } | null)?.[FAILURE_REASON];
        if (reason === undefined) host.setError(eid, message);
        else host.setError(eid, message, reason);
        return 'failed';
      } finally {
        kills.delete(eid);
        release();
      }
    },
    async kill(eid) {
      killed.push(eid);
      if (!options.hang && !options.stall) kills.get(eid)?.();
    },
    generateDocs: async () => '# script',
    generateToolDocs: async ({ serviceId, toolId }) => `# ${serviceId}.${toolId}`,
  };
}
