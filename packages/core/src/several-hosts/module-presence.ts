import type { ModuleStatus } from '@cyrnel/sdk/api';
import type { HostRecord } from '../processes/process-storage';

/**
 * Where the code of a module is, among the live hosts: a module whose code this host lacks is
 * `missing` only when no live host has it; otherwise it shows the status it has there.
 */
export interface ModulePresence {
  /** The status of module `id` among the live hosts that have its code (the best one), and which they are. */
  elsewhere(id: string): { status: ModuleStatus; hosts: string[] } | undefined;
  /** Whether another live host has module `id`'s code. */
  onAnotherHost(id: string): boolean;
}

/** The best status first: a module active on any live host is active. */
const RANK: readonly ModuleStatus[] = ['active', 'draining', 'inactive', 'failed'];

/**
 * Create the presence of modules over the live hosts as the last heartbeat read them.
 *
 * @example
 * ```ts
 * const presence = createModulePresence(() => processes.peers());
 * presence.elsewhere('mcp'); // { status: 'active', hosts: ['b'] } when only host b has it
 * ```
 */
export function createModulePresence(peers: () => readonly HostRecord[]): ModulePresence {
  return {
    elsewhere(id) {
      const having = peers().filter((peer) => peer.modules[id] !== undefined);
      if (having.length === 0) return undefined;
      const status = RANK.find((each) => having.some((peer) => peer.modules[id] === each)) ?? 'inactive';
      return { status, hosts: having.map((peer) => peer.id) };
    },
    onAnotherHost: (id) => peers().some((peer) => peer.modules[id] !== undefined),
  };
}
