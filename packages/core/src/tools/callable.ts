import type { AdapterModule } from '@cyrnel/sdk';
import { type CyrnelError, cyrnelError } from '../errors';
import type { ServiceHealth } from '../services/service-health';

/** What {@link Callable} reads of a service: a `ServiceRow` has it. */
export interface CallableService {
  readonly id: string;
  readonly adapter: string;
  readonly enabled: boolean;
}

/** What {@link Callable} reads of a tool: a `ToolRow` or a `ToolGateRow` has it. */
export interface CallableTool {
  readonly enabled: boolean;
  readonly serviceEnabled: boolean;
  readonly adapter: string;
}

/** Options of {@link createCallable}. */
export interface CallableOptions {
  /** The active (guarded) adapter instance of an adapter id. */
  readonly adapter: (adapterId: string) => AdapterModule | undefined;
  /** The ids of the active adapters. */
  readonly activeAdapterIds: () => readonly string[];
  /** The services this host failed to hydrate. */
  readonly health: ServiceHealth;
}

/**
 * Which tools and services are callable here now ("effectively enabled"): the tool and its
 * service enabled, the service's adapter active on this host, and the service hydrated on this
 * host (its adapter took it). One answer for the gate, discovery, search, the tools and services
 * lists, type rendering and direct calls.
 */
export interface Callable {
  /** Whether service `row` is effectively enabled. */
  service(row: CallableService): boolean;
  /** Whether tool `row` of service `serviceId` is effectively enabled. */
  tool(serviceId: string, row: CallableTool): boolean;
  /**
   * Why tool `toolId` of `serviceId` cannot be called, as the gate answers it, in its order: a
   * disabled service or tool (409), an adapter not active or a service not hydrated here (503);
   * undefined when it can.
   */
  refusal(serviceId: string, toolId: string, row: CallableTool): CyrnelError | undefined;
  /** What a ranked search keeps: tools of active adapters, of services not failed here. */
  searchScope(): { readonly adapters: readonly string[]; readonly excludedServices: string[] };
}

/**
 * Create the one answer to "can this be called here now".
 *
 * @example
 * ```ts
 * const callable = createCallable({ adapter: (id) => registry.adapter(id), activeAdapterIds, health });
 * callable.tool('weather', { enabled: true, serviceEnabled: true, adapter: 'openapi' }); // true once hydrated
 * ```
 */
export function createCallable(options: CallableOptions): Callable {
  const { adapter, health } = options;
  /** The first reason, in the gate's order, why a tool of `serviceId` is not callable here. */
  const blocker = (serviceId: string, row: CallableTool) => {
    if (!row.serviceEnabled) return 'service disabled' as const;
    if (!row.enabled) return 'tool disabled' as const;
    if (!adapter(row.adapter)) return 'adapter inactive' as const;
    const failure = health.error(serviceId);
    return failure === undefined ? undefined : { failure };
  };
  return {
    service: (row) =>
      blocker(row.id, { enabled: true, serviceEnabled: row.enabled, adapter: row.adapter }) === undefined,
    tool: (serviceId, row) => blocker(serviceId, row) === undefined,
    refusal(serviceId, toolId, row) {
      const reason = blocker(serviceId, row);
      if (reason === undefined) return undefined;
      if (reason === 'service disabled')
        return cyrnelError('service_disabled', `service ${serviceId} is disabled`);
      if (reason === 'tool disabled')
        return cyrnelError('tool_disabled', `tool ${serviceId}.${toolId} is disabled`);
      if (reason === 'adapter inactive')
        return cyrnelError(
          'module_unavailable',
          `adapter ${row.adapter} of service ${serviceId} is not active`,
        );
      return cyrnelError('service_unavailable', `service ${serviceId} is not available: ${reason.failure}`);
    },
    searchScope: () => ({ adapters: options.activeAdapterIds(), excludedServices: health.failed() }),
  };
}
