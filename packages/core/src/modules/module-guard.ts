import type {
  AdapterModule,
  EnvironmentModule,
  EnvironmentSetupContext,
  EnvironmentStats,
  GenerateDefinitionContext,
  InvokeInput,
  ModuleLogger,
  ModuleSetupContext,
  ServiceDefinition,
  ServiceState,
  TypeCheckContext,
} from '@cyrnel/sdk';
import { type CyrnelError, cyrnelError } from '../errors';
import { errorMessage } from '../scoped-logger';
import { timerDelay } from '../timer-delay';
import { guardAuthorization } from './guard-authorization';
import { guardedInvoke, translate } from './guarded-invoke';
import { portableOf, registerPortableView } from './portable-view';

/** Deadlines of module calls. */
export interface ModuleDeadlines {
  /** `instantiate()`, and `setup()`; default 30,000 ms each (past it: 503 `module_setup_timeout`). */
  readonly setupMs?: number;
  /** One `adapter.invoke`; default 60,000 ms (past it: 502 `invoke_timeout`, the signal aborted). */
  readonly invokeMs?: number;
  /** `teardown()`; default 10,000 ms (past it the instance is dropped and the failure logged). */
  readonly teardownMs?: number;
}

/** Default {@link ModuleDeadlines}. */
export const DEFAULT_MODULE_DEADLINES: Required<ModuleDeadlines> = {
  setupMs: 30_000,
  invokeMs: 60_000,
  teardownMs: 10_000,
};

/** The message a missed deadline rejects with. */
class DeadlineError extends Error {}

/** `task` racing a deadline: rejects with `onTimeout()` when `ms` pass first. */
function withDeadline<T>(task: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timerDelay(ms));
  });
  return Promise.race([task, deadline]).finally(() => clearTimeout(timer));
}

function setupTimeout(id: string, ms: number): CyrnelError {
  return cyrnelError('module_setup_timeout', `module ${id} did not finish setup within ${ms} ms`);
}

/**
 * A module's `instantiate()` under the setup deadline (a hanging factory fails the module with
 * `module_setup_timeout` instead of hanging the host).
 *
 * @example
 * ```ts
 * const instance = await instantiateModule('openapi', () => definition.instantiate());
 * ```
 */
export function instantiateModule<T>(
  id: string,
  instantiate: () => T | Promise<T>,
  deadlines: ModuleDeadlines = {},
): Promise<T> {
  const ms = deadlines.setupMs ?? DEFAULT_MODULE_DEADLINES.setupMs;
  return withDeadline(Promise.resolve().then(instantiate), ms, () => setupTimeout(id, ms));
}

/** The lifecycle every module instance shares: set up once under a deadline, refused after teardown. */
interface Lifecycle {
  /** Run `setup` under the setup deadline; a late setup is torn down when it finally ends. */
  setup(run: () => Promise<void>, teardown: () => Promise<void>): Promise<void>;
  /** Refuse the call once torn down, else run it. */
  open(): void;
  /** Abort every call in flight, refuse new ones, and tear down under its deadline. */
  teardown(run: () => Promise<void>): Promise<void>;
  /** Aborted at teardown: the module's outbound work stops with it. */
  readonly signal: AbortSignal;
}

function lifecycle(id: string, deadlines: Required<ModuleDeadlines>, logger: ModuleLogger): Lifecycle {
  const closing = new AbortController();
  let tornDown = false;
  return {
    signal: closing.signal,
    async setup(run, teardown) {
      const started = run();
      try {
        await withDeadline(started, deadlines.setupMs, () => setupTimeout(id, deadlines.setupMs));
      } catch (error) {
        // A setup that ends after its deadline leaves nothing running behind.
        started.then(teardown, () => undefined).catch(() => undefined);
        throw error;
      }
    },
    open() {
      if (tornDown) throw cyrnelError('module_torn_down', `module ${id} was torn down`);
    },
    async teardown(run) {
      if (tornDown) return;
      tornDown = true;
      closing.abort(cyrnelError('module_torn_down', `module ${id} was torn down`));
      await withDeadline(run(), deadlines.teardownMs, () => new DeadlineError('teardown')).catch((error) => {
        logger.error('module teardown failed', {
          module: id,
          error:
            error instanceof DeadlineError
              ? `timed out after ${deadlines.teardownMs} ms`
              : errorMessage(error),
        });
      });
    },
  };
}

/**
 * One adapter instance behind the host's guards (every call the host makes goes through it):
 * `setup` under a deadline (`module_setup_timeout`), calls refused after `teardown`
 * (`module_torn_down`), `invoke` under its deadline with an `AbortSignal` the adapter passes to
 * its outbound work (aborted by the deadline, the caller's signal or teardown), and errors
 * translated: a refused definition is a 400, a failed hydration or call a 502, a module's own
 * `CyrnelError` kept as it is.
 *
 * @example
 * ```ts
 * const adapter = guardAdapter('openapi', await module.instantiate(), { logger });
 * await adapter.setup({ config, secrets, logger });
 * await adapter.invoke({ serviceId: 'petstore', toolId: 'listPets', parameters: {} }); // ≤ 60 s
 * ```
 */
export function guardAdapter(
  id: string,
  inner: AdapterModule,
  options: { readonly deadlines?: ModuleDeadlines; readonly logger: ModuleLogger },
): AdapterModule {
  const deadlines = { ...DEFAULT_MODULE_DEADLINES, ...options.deadlines };
  const life = lifecycle(id, deadlines, options.logger);
  // A portable adapter's setup context and snapshots are kept (references, no copies): a sandbox
  // process that makes its calls gets exactly what this instance got.
  const portable = portableOf(inner);
  let setupContext: { config: Record<string, unknown>; secrets: Record<string, unknown> } | undefined;
  const states = new Map<string, ServiceState>();
  const guarded: AdapterModule = {
    ...(portable ? { portable } : {}),
    setup: (context: ModuleSetupContext) =>
      life.setup(
        () => {
          if (portable) setupContext = { config: context.config, secrets: context.secrets };
          return inner.setup(context);
        },
        () => inner.teardown(),
      ),
    teardown: () =>
      life.teardown(() => {
        states.clear();
        return inner.teardown();
      }),
    async generateDefinition(text: string, context?: GenerateDefinitionContext): Promise<ServiceDefinition> {
      life.open();
      try {
        return await (context === undefined
          ? inner.generateDefinition(text)
          : inner.generateDefinition(text, context));
      } catch (error) {
        throw translate(error, (message) =>
          cyrnelError('invalid_definition', `adapter ${id} refused the definition: ${message}`, {
            details: [{ path: 'definition', message }],
          }),
        );
      }
    },
    ...(inner.refreshDefinition
      ? {
          async refreshDefinition(state: ServiceState): Promise<ServiceDefinition> {
            life.open();
            try {
              return await (inner.refreshDefinition as (s: ServiceState) => Promise<ServiceDefinition>)(
                state,
              );
            } catch (error) {
              throw translate(error, (message) =>
                cyrnelError(
                  'upstream_failed',
                  `adapter ${id} failed to list the tools of service ${state.id} again: ${message}`,
                ),
              );
            }
          },
        }
      : {}),
    ...(inner.authorization ? { authorization: guardAuthorization(id, inner.authorization, life.open) } : {}),
    async hydrateService(state) {
      life.open();
      try {
        if (portable) states.delete(state.id);
        await inner.hydrateService(state);
        if (portable) states.set(state.id, state);
      } catch (error) {
        throw translate(error, (message) =>
          cyrnelError('upstream_failed', `adapter ${id} failed to hydrate service ${state.id}: ${message}`),
        );
      }
    },
    async dehydrateService(serviceId) {
      life.open();
      states.delete(serviceId);
      await inner.dehydrateService(serviceId);
    },
    async invoke(input: InvokeInput) {
      life.open();
      return guardedInvoke(inner, input, {
        signal: life.signal,
        invokeMs: deadlines.invokeMs,
        logger: options.logger,
      });
    },
  };
  if (portable)
    registerPortableView(guarded, {
      portable,
      invokeMs: deadlines.invokeMs,
      setup: () => setupContext,
      state: (serviceId) => states.get(serviceId),
    });
  return guarded;
}

/** What a torn-down environment's sandboxes are doing: nothing. */
const NO_SANDBOXES: EnvironmentStats = Object.freeze({
  sandboxes: 0,
  idleSandboxes: 0,
  running: 0,
  queued: 0,
  waits: 0,
  crashes: 0,
});

/**
 * One environment instance behind the host's guards: `setup` under a deadline
 * (`module_setup_timeout`) and calls refused after `teardown` (`module_torn_down`). Executions
 * keep the process deadlines of the process manager.
 *
 * @example
 * ```ts
 * const environment = guardEnvironment('typescript-ivm', instance, { logger });
 * await environment.setup({ config, secrets, logger, bindings });
 * ```
 */
export function guardEnvironment(
  id: string,
  inner: EnvironmentModule,
  options: { readonly deadlines?: ModuleDeadlines; readonly logger: ModuleLogger },
): EnvironmentModule {
  const deadlines = { ...DEFAULT_MODULE_DEADLINES, ...options.deadlines };
  const life = lifecycle(id, deadlines, options.logger);
  const open =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      life.open();
      return call(...args);
    };
  return {
    setup: (context: EnvironmentSetupContext) =>
      life.setup(
        () => inner.setup(context),
        () => inner.teardown(),
      ),
    teardown: () => life.teardown(() => inner.teardown()),
    execute: open((input) => inner.execute(input)),
    // A kill after teardown has nothing left to stop.
    kill: (eid) => (life.signal.aborted ? Promise.resolve() : inner.kill(eid)),
    generateDocs: open(() => inner.generateDocs()),
    generateToolDocs: open((input) => inner.generateToolDocs(input)),
    ...(inner.generateTypes
      ? {
          generateTypes: open((...args: Parameters<NonNullable<EnvironmentModule['generateTypes']>>) =>
            (inner.generateTypes as NonNullable<EnvironmentModule['generateTypes']>)(...args),
          ),
        }
      : {}),
    ...(inner.findToolCalls
      ? {
          findToolCalls: open((code: string) =>
            (inner.findToolCalls as NonNullable<EnvironmentModule['findToolCalls']>)(code),
          ),
        }
      : {}),
    ...(inner.checkTypes
      ? {
          checkTypes: open((code: string, context: TypeCheckContext) =>
            (inner.checkTypes as NonNullable<EnvironmentModule['checkTypes']>)(code, context),
          ),
        }
      : {}),
    // Stats of a torn-down environment are nobody's.
    ...(inner.stats
      ? {
          stats: () =>
            life.signal.aborted ? NO_SANDBOXES : (inner.stats as NonNullable<EnvironmentModule['stats']>)(),
        }
      : {}),
    // A pause after teardown has no execution left to pause.
    ...(inner.pauseDeadline
      ? {
          pauseDeadline: (eid: number, paused: boolean) => {
            if (!life.signal.aborted) inner.pauseDeadline?.(eid, paused);
          },
        }
      : {}),
  };
}
