import type { AdapterModule, CatalogChange, OutboundPolicy } from '@cyrnel/sdk';
import { withSharedSchemas } from '@cyrnel/sdk';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { serviceOfInstance } from '../connections/connection-records';
import { portableView } from '../modules/portable-view';
import { describeOutboundPolicy } from '../outbound/outbound-policy';
import type { Callable } from '../tools/callable';
import type { SharedSchemasCache } from '../tools/shared-schemas-cache';
import type { PreparedCall } from './prepared-call';

/** Options of {@link createDirectCallsHost}. */
export interface DirectCallsHostOptions {
  readonly catalog: CatalogStorage;
  readonly sharedSchemas: SharedSchemasCache;
  /** The active (guarded) adapter instance of an adapter id. */
  readonly adapter: (adapterId: string) => AdapterModule | undefined;
  /** Which tools are callable here: the others are not prepared (the gate answers their calls). */
  readonly callable: Callable;
  /** The host's catalog state: changes with every catalog write, active adapter and hydration. */
  readonly revision: () => string;
  /** The policy the host's modules got; one not made by `createOutboundPolicy` turns direct calls off. */
  readonly outbound?: OutboundPolicy;
}

/** What the egress gateway's workers ask the main thread for: prepared calls and catalog changes. */
export interface DirectCallsHost {
  /** A {@link PreparedCall}, or undefined when the call must go through the gate. */
  prepare(serviceId: unknown, toolId: unknown): Promise<PreparedCall | undefined>;
  /** Subscribe to changes; answers the unsubscribe function. */
  onChange(listener: (change: CatalogChange) => Promise<void>): () => void;
  /** Tell every listener and wait for them (a failing listener is logged by its owner, not here). */
  changed(): Promise<void>;
}

/**
 * Create the main thread's side of portable calls: what a gateway worker needs to call a portable
 * adapter's tool itself (config and secrets included: they go to the workers only), read under the gate's rules (a tool that is unknown, disabled, of a disabled or
 * unavailable service, or of an adapter that is not portable is not prepared: its calls go through
 * the gate, which answers them), and the change notifications that make the workers' runtimes drop it.
 *
 * @example
 * ```ts
 * const direct = createDirectCallsHost({ catalog, sharedSchemas, adapter, callable, revision });
 * const prepared = await direct.prepare('weather', 'getForecast'); // PreparedCall | undefined
 * ```
 */
export function createDirectCallsHost(options: DirectCallsHostOptions): DirectCallsHost {
  const listeners = new Set<(change: CatalogChange) => Promise<void>>();
  // The services prepared since the last change, with their adapter: those the host has
  // dehydrated since are announced as dropped.
  const prepared = new Map<string, string>();
  // Every announcement gets a label of its own, also when the catalog did not move (a
  // re-hydration with new secrets): what was prepared before it is never taken for after.
  let announced = 0;
  const revision = () => `${options.revision()}#${announced}`;
  // The outbound policy as data is the same for every call until the server listens elsewhere.
  const outboundData = () => (options.outbound ? describeOutboundPolicy(options.outbound) : null);

  return {
    async prepare(instanceId, toolId) {
      if (typeof instanceId !== 'string' || typeof toolId !== 'string') return undefined;
      // A connection's adapter state is held under its own id (`<service>@<connection>`): the
      // gate's rules are the service's, the state (its secrets) the connection's.
      const serviceId = serviceOfInstance(instanceId);
      // Read first: data read after it may be newer than the label, never older.
      const label = revision();
      // One read: the gate's flags and the schema (a tool is prepared once per change, not per call).
      const tool = await options.catalog.getTool(serviceId, toolId);
      if (!tool || !options.callable.tool(serviceId, tool)) return undefined;
      const view = portableView(options.adapter(tool.adapter));
      const setup = view?.setup();
      const state = view?.state(instanceId);
      const toolState = state && Object.hasOwn(state.tools, toolId) ? state.tools[toolId] : undefined;
      if (!view || !setup || !state || !toolState) return undefined;
      const outbound = outboundData();
      if (outbound === undefined) return undefined;
      const shared = await options.sharedSchemas.get(serviceId, tool.serviceHash);
      prepared.set(instanceId, tool.adapter);
      const { tools: _all, ...service } = state;
      return {
        revision: label,
        adapter: {
          moduleUrl: view.portable.moduleUrl,
          exportName: view.portable.exportName,
          config: setup.config,
          secrets: setup.secrets,
          outbound,
          invokeMs: view.invokeMs,
        },
        service,
        tool: {
          id: toolId,
          state: toolState,
          inputSchema: withSharedSchemas(tool.inputSchema, shared ?? {}),
        },
      };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async changed() {
      announced++;
      const dropped: string[] = [];
      for (const [serviceId, adapterId] of prepared) {
        if (portableView(options.adapter(adapterId))?.state(serviceId) !== undefined) continue;
        dropped.push(serviceId);
        prepared.delete(serviceId);
      }
      if (listeners.size === 0) return;
      const change: CatalogChange = { revision: revision(), dropped };
      await Promise.all([...listeners].map((listener) => listener(change).catch(() => undefined)));
    },
  };
}
