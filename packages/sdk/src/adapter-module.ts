import type { AdapterAuthorization } from './adapter-credentials';
import type { PortableAdapter } from './direct-calls';
import type { InvokeInput } from './invoke-input';
import type { Module } from './module';
import type { ServiceDefinition, ServiceState } from './service-definition';

/**
 * A module that turns definitions into tools and performs tool calls.
 *
 * @example
 * ```ts
 * import type { AdapterModule, ServiceState } from '@cyrnel/sdk';
 * const services = new Map<string, ServiceState>();
 * export const adapter: AdapterModule = {
 *   async setup() {},
 *   async teardown() { services.clear(); },
 *   async generateDefinition() {
 *     return { name: 'ping', description: '', configSchema: {}, secretsSchema: {}, adapterDomain: {},
 *       tools: [{ id: 'ping', name: 'ping', description: 'Health check', inputSchema: { type: 'object' },
 *         outputSchema: { type: 'object' }, adapterDomain: {} }] };
 *   },
 *   async hydrateService(state) { services.set(state.id, state); },
 *   async dehydrateService(id) { services.delete(id); },
 *   async invoke() { return { ok: true }; },
 * };
 * ```
 */
export interface AdapterModule extends Module {
  /**
   * Parse a definition text into a {@link ServiceDefinition}; throw to reject the install. An
   * adapter whose tools are only known by asking a server (MCP) may use `context`: the config and
   * secrets the install request carries (on an update or a regeneration, the service's stored
   * ones), before any schema has checked them. An adapter that ignores it stays pure.
   */
  generateDefinition(input: string, context?: GenerateDefinitionContext): Promise<ServiceDefinition>;
  /**
   * Optional: list a service's tools again, for `POST /services/:id/refresh` and
   * after the adapter called `context.services.toolsChanged(id)` from its setup context. Answers
   * the whole new definition; the host stores it like an update of the same text: tools that
   * remain keep their enabled flag, new ones are enabled, and config and secrets stay. Adapters
   * without it answer 409 `refresh_not_supported`.
   *
   * @example
   * ```ts
   * async refreshDefinition(state) {
   *   const tools = await connectionOf(state).listTools();
   *   return definitionFrom(state.adapterDomain, tools);
   * }
   * ```
   */
  refreshDefinition?(state: ServiceState): Promise<ServiceDefinition>;
  /**
   * Optional: the adapter is stateless beyond each service's snapshot, so a sandbox process may run
   * its own instance of it and make tool calls there, without a round trip to the host: it is set
   * up with the same config, secrets and outbound policy, hydrated with the same `ServiceState`
   * (holding the tools called so far), and must answer the same. Adapters that hold connections
   * (MCP) leave it out; their calls go through the host.
   */
  readonly portable?: PortableAdapter;
  /**
   * Optional: the adapter signs connections in itself (OAuth of MCP servers), keeping what it
   * obtains in the host's per-connection store (`context.credentials`). The host routes a
   * connection's authorize and callback here when `signsIn` says so for its service.
   */
  readonly authorization?: AdapterAuthorization;
  /** Take a snapshot of an enabled service; replace (not merge) what was kept for `state.id`. */
  hydrateService(state: ServiceState): Promise<void>;
  /** Drop everything kept for service `id`. Idempotent. */
  dehydrateService(id: string): Promise<void>;
  /**
   * Perform one tool call. Throw on an unknown pair or any transport failure. Resolves to the
   * result, or to its JSON text wrapped by `jsonText(text)` (a large answer parsed off the main
   * thread: the host hands the text on unparsed).
   */
  invoke(input: InvokeInput): Promise<unknown>;
}

/** What {@link AdapterModule.generateDefinition} may use besides the text. */
export interface GenerateDefinitionContext {
  /** The service's configuration as given (no defaults applied, not yet validated). */
  readonly config: Record<string, unknown>;
  /** The service's secrets as given (decrypted, not yet validated). Never log them. */
  readonly secrets: Record<string, unknown>;
}
