import type { EnvironmentModule, ModuleLogger } from '@cyrnel/sdk';
import type { EnvironmentLease, EnvironmentProvider } from './environment-provider';

interface Holder {
  readonly moduleId: string;
  readonly environment: EnvironmentModule;
  leases: number;
  draining: boolean;
}

/** The one active environment plus the draining ones (finishing their runs), handing out leases. */
export interface EnvironmentSlot {
  readonly provider: EnvironmentProvider;
  /** Make `environment` active; the previous active one drains. */
  activate(moduleId: string, environment: EnvironmentModule): void;
  /** Drain the active environment when it is `moduleId` (no-op otherwise). */
  deactivate(moduleId: string): void;
  /** Id of the active environment. */
  activeId(): string | undefined;
  /** Whether an instance of `moduleId` is still draining. */
  isDraining(moduleId: string): boolean;
  /** Tear down every environment now (host shutdown); leases released later are ignored. */
  close(): Promise<void>;
}

/** Create an {@link EnvironmentSlot}; teardown failures are logged, never thrown. */
export function createEnvironmentSlot(logger: ModuleLogger): EnvironmentSlot {
  let active: Holder | undefined;
  const draining = new Set<Holder>();
  const teardowns = new Set<Promise<void>>();

  const teardown = (holder: Holder): void => {
    draining.delete(holder);
    const done = holder.environment
      .teardown()
      .catch((error: unknown) =>
        logger.error('environment teardown failed', {
          module: holder.moduleId,
          error: error instanceof Error ? error.message : String(error),
        }),
      )
      .finally(() => teardowns.delete(done));
    teardowns.add(done);
  };

  const drain = (holder: Holder): void => {
    holder.draining = true;
    if (holder.leases === 0) teardown(holder);
    else draining.add(holder);
  };

  const provider: EnvironmentProvider = {
    active: () => active?.environment,
    lease(): EnvironmentLease | undefined {
      const holder = active;
      if (!holder) return undefined;
      holder.leases++;
      let released = false;
      return {
        moduleId: holder.moduleId,
        environment: holder.environment,
        release() {
          if (released) return;
          released = true;
          holder.leases--;
          if (holder.draining && holder.leases === 0 && draining.has(holder)) teardown(holder);
        },
      };
    },
  };

  return {
    provider,
    activate(moduleId, environment) {
      const previous = active;
      active = { moduleId, environment, leases: 0, draining: false };
      if (previous) drain(previous);
    },
    deactivate(moduleId) {
      if (active?.moduleId !== moduleId) return;
      const previous = active;
      active = undefined;
      drain(previous);
    },
    activeId: () => active?.moduleId,
    isDraining: (moduleId) => [...draining].some((holder) => holder.moduleId === moduleId),
    async close() {
      if (active) drain(active);
      active = undefined;
      for (const holder of [...draining]) teardown(holder);
      await Promise.all([...teardowns]);
    },
  };
}
