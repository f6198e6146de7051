import type { EnvironmentModule } from '@cyrnel/sdk';

/**
 * One execution's hold on an environment. While a lease is held the environment is not torn
 * down, even when it is draining: `release()` exactly once when the execution ends.
 */
export interface EnvironmentLease {
  /** Id of the leased environment module. */
  readonly moduleId: string;
  /** The environment instance, set up with the host's bindings. */
  readonly environment: EnvironmentModule;
  /** End the hold; a draining environment is torn down after its last lease. */
  release(): void;
}

/** Hands out the active environment to the process manager. */
export interface EnvironmentProvider {
  /** Lease the active environment for one execution, or undefined when none is active. */
  lease(): EnvironmentLease | undefined;
  /** The active environment (for docs), or undefined. Not leased: do not execute on it. */
  active(): EnvironmentModule | undefined;
}
