import type { InvokeInput } from './invoke-input';
import type { Module } from './module';
import type { ServiceDefinition, ServiceState } from './service-definition';

/**
 * A module that turns definitions into tools and performs tool calls (seeds 000, 001).
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
  /** Parse a definition text into a {@link ServiceDefinition}. Pure; throw to reject the install. */
  generateDefinition(input: string): Promise<ServiceDefinition>;
  /** Take a snapshot of an enabled service; replace (not merge) what was kept for `state.id`. */
  hydrateService(state: ServiceState): Promise<void>;
  /** Drop everything kept for service `id`. Idempotent. */
  dehydrateService(id: string): Promise<void>;
  /** Perform one tool call. Throw on an unknown pair or any transport failure. */
  invoke(input: InvokeInput): Promise<unknown>;
}
