import { API_ROUTES, type HealthResponse, type Identity, type OpenApiResponse } from '@cyrnel/sdk/api';
import { type ApprovalsApi, createApprovalsApi } from './approvals-api';
import { type ConnectionsApi, createConnectionsApi } from './connections-api';
import { createEnvironmentApi, type EnvironmentApi } from './environment-api';
import { createKeysApi, type KeysApi } from './keys-api';
import { createLogsApi, type LogsApi } from './logs-api';
import { createMetricsApi, type MetricsApi } from './metrics-api';
import { createModulesApi, type ModulesApi } from './modules-api';
import { createPrincipalsApi, type PrincipalsApi } from './principals-api';
import { createProcessesApi, type ProcessesApi } from './processes-api';
import { createRegistriesApi, type RegistriesApi } from './registries-api';
import type { RequestOptions } from './request-options';
import { createRouteCaller } from './route-call';
import { createServicesApi, type ServicesApi } from './services-api';
import { createToolsApi, type ToolsApi } from './tools-api';
import { createTransport, type TransportOptions } from './transport';

/** Options of {@link createClient}. */
export type ClientOptions = TransportOptions;

/**
 * A typed client of the cyrnel HTTP API: one method per route of `API_ROUTES` (`@cyrnel/sdk/api`),
 * grouped by resource and named as the table names it.
 */
export interface CyrnelClient {
  /** `GET /health` (no auth). */
  health(options?: RequestOptions): Promise<HealthResponse>;
  /**
   * `GET /openapi.json` (no auth): the server's API as an OpenAPI 3.1 document; `info.version`
   * is the version of its HTTP API.
   *
   * @example
   * ```ts
   * const { info } = await client.openapi();
   * ```
   */
  openapi(options?: RequestOptions): Promise<OpenApiResponse>;
  /**
   * `GET /me` (any key): who this client's key is: how it signed in (`key`, `bootstrap`, or `open`
   * on a server without keys), its role, the stored key's id, name and prefix, and its principal.
   * Never the key itself.
   *
   * @example
   * ```ts
   * const { role, key, principal } = await client.me();
   * if (role !== 'admin') console.log(`${key?.name} acts for ${principal?.name}`);
   * ```
   */
  me(options?: RequestOptions): Promise<Identity>;
  /** Adapter and environment modules. */
  readonly modules: ModulesApi;
  /** Installed services, their config and secrets. */
  readonly services: ServicesApi;
  /** Tools of the installed services. */
  readonly tools: ToolsApi;
  /** Docs and type declarations of the active environment. */
  readonly environment: EnvironmentApi;
  /** Processes: submitted code, its results and events. */
  readonly processes: ProcessesApi;
  /** API keys with roles (admin keys only). */
  readonly keys: KeysApi;
  /** Who the API keys belong to: people and automations (admin keys only). */
  readonly principals: PrincipalsApi;
  /** A service's named credentials (`/services/:serviceId/connections`). */
  readonly connections: ConnectionsApi;
  /** The server's configured registries. */
  readonly registries: RegistriesApi;
  /** Tool calls that wait for a person's approval, and plans of whole programs (approver keys). */
  readonly approvals: ApprovalsApi;
  /** The server's metrics in the Prometheus text format (admin keys). */
  readonly metrics: MetricsApi;
  /** The server's recent log lines, listed or followed (admin keys). */
  readonly logs: LogsApi;
}

/**
 * Create a client. Uses `fetch` only, so it runs in Node 24 and in browsers.
 *
 * @example
 * const client = createClient({ baseUrl: 'http://127.0.0.1:9371', apiKey: process.env.CYRNEL_API_KEY });
 * const { output } = await client.processes.run('cyrnel.output({ hello: "world" })');
 */
export function createClient(options: ClientOptions): CyrnelClient {
  const transport = createTransport(options);
  const call = createRouteCaller(transport);
  return {
    health: (request) => call(API_ROUTES.meta.health, {}, request),
    openapi: (request) => call(API_ROUTES.meta.openapi, {}, request),
    me: (request) => call(API_ROUTES.meta.me, {}, request),
    modules: createModulesApi(call),
    services: createServicesApi(call),
    tools: createToolsApi(call),
    environment: createEnvironmentApi(call),
    processes: createProcessesApi(call, transport),
    keys: createKeysApi(call),
    principals: createPrincipalsApi(call),
    connections: createConnectionsApi(call),
    registries: createRegistriesApi(call),
    approvals: createApprovalsApi(call),
    metrics: createMetricsApi(call),
    logs: createLogsApi(call, transport),
  };
}
