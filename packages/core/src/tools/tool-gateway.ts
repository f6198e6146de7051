import type {
  DiscoveredService,
  DiscoveredTool,
  DiscoverServicesQuery,
  DiscoverToolsQuery,
  InvokeInput,
  ToolDescription,
  TypesSelection,
} from '@cyrnel/sdk';

/**
 * What the process manager needs from the tool registry: the invocation gate and discovery.
 * Every method throws `CyrnelError`s (`not_found`, `conflict`, `unavailable`,
 * `invalid_request`, `upstream_error`, `timeout`).
 */
export interface ToolGateway {
  /**
   * The invocation gate (404, 409, 503, 400 in that order), then `adapter.invoke`; a portable
   * adapter's answer comes as a `JsonText` (JSON text from the egress gateway). `instanceId` is
   * the id the adapter holds the call's connection under (`ConnectionRouter.route`; default: the
   * service's own): the gate checks the service, the adapter is called with the connection's id.
   */
  invoke(input: InvokeInput, instanceId?: string): Promise<unknown>;
  /** Enabled services. */
  discoverServices(query: DiscoverServicesQuery): Promise<DiscoveredService[]>;
  /** Effectively enabled tools, ranked. */
  discoverTools(query: DiscoverToolsQuery): Promise<DiscoveredTool[]>;
  /** One effectively enabled tool with its schemas (404 otherwise). */
  describeTool(serviceId: string, toolId: string): Promise<ToolDescription>;
  /** Type declarations of the selected tools (`GET /environment/types`); 400 listing unknown names. */
  discoverTypes?(selection: TypesSelection): Promise<string>;
}
