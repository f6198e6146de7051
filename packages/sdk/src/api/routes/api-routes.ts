import type { Route } from '../route';
import { APPROVAL_ROUTES } from './approval-routes';
import { CONNECTION_ROUTES } from './connection-routes';
import { ENVIRONMENT_ROUTES } from './environment-routes';
import { KEY_ROUTES } from './key-routes';
import { LOG_ROUTES } from './log-routes';
import { META_ROUTES } from './meta-routes';
import { METRICS_ROUTES } from './metrics-routes';
import { MODULE_ROUTES } from './module-routes';
import { PRINCIPAL_ROUTES } from './principal-routes';
import { PROCESS_ROUTES } from './process-routes';
import { REGISTRY_ROUTES } from './registry-routes';
import { SERVICE_ROUTES } from './service-routes';
import { TOOL_ROUTES } from './tool-routes';

/**
 * Every route of the HTTP API, by resource and by the name the client gives it
 * (`API_ROUTES.services.refresh` is `client.services.refresh`). The order is the document's.
 *
 * @example
 * ```ts
 * const { method, path, role } = API_ROUTES.services.refresh; // 'POST', '/services/:serviceId/refresh', 'admin'
 * ```
 */
export const API_ROUTES = {
  meta: META_ROUTES,
  modules: MODULE_ROUTES,
  services: SERVICE_ROUTES,
  connections: CONNECTION_ROUTES,
  registries: REGISTRY_ROUTES,
  processes: PROCESS_ROUTES,
  keys: KEY_ROUTES,
  principals: PRINCIPAL_ROUTES,
  tools: TOOL_ROUTES,
  approvals: APPROVAL_ROUTES,
  environment: ENVIRONMENT_ROUTES,
  metrics: METRICS_ROUTES,
  logs: LOG_ROUTES,
} as const satisfies Record<string, Record<string, Route>>;

/** The resources of {@link API_ROUTES}. */
export type ApiResource = keyof typeof API_ROUTES;

/** One entry of the table with where it sits: `resource.name`. */
export interface NamedRoute {
  readonly resource: ApiResource;
  readonly name: string;
  readonly route: Route;
}

/** Every route of {@link API_ROUTES} in the table's order, named. */
export function listRoutes(): NamedRoute[] {
  return Object.entries(API_ROUTES).flatMap(([resource, routes]) =>
    Object.entries(routes).map(([name, route]) => ({ resource: resource as ApiResource, name, route })),
  );
}
