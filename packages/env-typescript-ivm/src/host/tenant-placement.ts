import type { SandboxProcess } from './sandbox-process';

/** Where an execution goes, as {@link placeExecution} decides. */
export type Placement =
  /** An idle child: one of the tenant's own, else one no tenant has used yet. */
  | { readonly kind: 'idle'; readonly child: SandboxProcess }
  /** A new child (the pool is below its size). */
  | { readonly kind: 'spawn' }
  /** A child of the tenant whose executions all await the host, with room for one more. */
  | { readonly kind: 'share'; readonly child: SandboxProcess }
  /** The pool is full: stop this idle child of another tenant and fork one in its place. */
  | { readonly kind: 'evict'; readonly child: SandboxProcess };

/** What the pool knows of its children, as {@link placeExecution} reads it. */
export interface PoolChildren {
  /** Live children, retired ones included until they exit. */
  readonly all: ReadonlySet<SandboxProcess>;
  /** Children without work, longest idle first. */
  readonly idle: readonly SandboxProcess[];
  /** Children being stopped (idle too long, or evicted): they take no work. */
  readonly retired: ReadonlySet<SandboxProcess>;
  /** The tenant each child serves; a child absent here has served nobody yet. */
  readonly tenantOf: ReadonlyMap<SandboxProcess, string>;
  /** Children running an execution that shares its child with nobody. */
  readonly alone: ReadonlySet<SandboxProcess>;
  /** True while another child may be forked (live plus pending respawns below the pool's size). */
  readonly room: boolean;
  /**
   * True while a child may be forked beyond the pool's size for a tenant that has none (live
   * plus pending below size × executions per child: the executions the pool would hold if
   * children were shared), and only while fewer than `size` children compute: one key's runs
   * waiting on the host never hold every other key's back, and the cores are not oversubscribed.
   */
  readonly burst?: boolean;
  /** The pool's size: beyond it, children are forked only while fewer than this many compute. */
  readonly size?: number;
  /** Executions one child may host at once. */
  readonly perChild: number;
}

/** The least loaded child of `tenant` whose executions all await the host, with room for one more. */
function awaitingChild(children: PoolChildren, tenant: string): SandboxProcess | undefined {
  let best: SandboxProcess | undefined;
  for (const child of children.all) {
    const { executions } = child;
    if (children.tenantOf.get(child) !== tenant || children.alone.has(child)) continue;
    if (!child.alive || children.retired.has(child) || executions === 0 || executions >= children.perChild)
      continue;
    if (child.awaiting === executions && (!best || executions < best.executions)) best = child;
  }
  return best;
}

/**
 * Where the next execution of `tenant` runs; undefined: it waits. A child serves one tenant for
 * its life (assigned at its first execution), so a crash or an escape never reaches another
 * key's runs. In order: an idle child of the tenant, an idle child nobody used yet, a new child
 * while the pool is below its size, a child of the tenant whose executions all await the host
 * (not for an execution that must run `alone`), the longest idle child of another tenant,
 * stopped to make room, and last, for a tenant with no child, a child beyond the pool's size
 * (`burst`, while fewer than `size` children compute): a key whose runs all wait on the host
 * must not hold back every other key's.
 *
 * @example
 * ```ts
 * const placement = placeExecution(children, 'key-1', false);
 * if (placement?.kind === 'share') placement.child.run(eid, job, handlers);
 * ```
 */
export function placeExecution(
  children: PoolChildren,
  tenant: string,
  alone: boolean,
): Placement | undefined {
  let fresh: SandboxProcess | undefined;
  let other: SandboxProcess | undefined;
  for (const child of children.idle) {
    // Never one with work: stopping it would fail executions of its tenant.
    if (child.executions > 0 || !child.alive || children.retired.has(child)) continue;
    const owner = children.tenantOf.get(child);
    if (owner === tenant) return { kind: 'idle', child };
    if (owner === undefined) fresh ??= child;
    else other ??= child;
  }
  if (fresh) return { kind: 'idle', child: fresh };
  if (children.room) return { kind: 'spawn' };
  const shared = alone ? undefined : awaitingChild(children, tenant);
  if (shared) return { kind: 'share', child: shared };
  if (other) return { kind: 'evict', child: other };
  return children.burst && !hasChild(children, tenant) && computing(children) < (children.size ?? 0)
    ? { kind: 'spawn' }
    : undefined;
}

/** Whether `tenant` has a live child (it then waits for its own, as before). */
function hasChild(children: PoolChildren, tenant: string): boolean {
  for (const child of children.all)
    if (child.alive && !children.retired.has(child) && children.tenantOf.get(child) === tenant) return true;
  return false;
}

/** Children with an execution that is computing (not awaiting the host): they use a core each. */
function computing(children: PoolChildren): number {
  let count = 0;
  for (const child of children.all) if (child.alive && child.awaiting < child.executions) count++;
  return count;
}
