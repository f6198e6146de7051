import { ERROR_REASONS, type ErrorReason } from './errors';
import type { Route } from './route';

/** Calling an adapter (hydrating a service, listing its tools): what the guard and adapters answer. */
export const ADAPTER_REASONS = [
  'upstream_failed',
  'upstream_unauthorized',
  'outbound_refused',
  'module_torn_down',
] as const satisfies readonly ErrorReason[];

/** Checking config and secrets against their schemas (on a patch, an install, before a hydration). */
export const SETTINGS_REASONS = [
  'invalid_request',
  'missing_secret',
  'upstream_failed',
] as const satisfies readonly ErrorReason[];

/** Reading a document from a URL under the outbound policy and the download caps. */
export const DOWNLOAD_REASONS = [
  'outbound_refused',
  'payload_too_large',
  'upstream_failed',
  'download_timeout',
] as const satisfies readonly ErrorReason[];

/** Downloading a definition and handing it to its adapter. */
export const DEFINITION_REASONS = [
  ...DOWNLOAD_REASONS,
  'invalid_request',
  'invalid_definition',
  'module_unavailable',
] as const satisfies readonly ErrorReason[];

/** Reading a registry (or npm's metadata) and downloading a version from it. */
export const REGISTRY_REASONS = [
  ...DOWNLOAD_REASONS,
  'invalid_request',
  'registry_entry_not_found',
  'invalid_registry',
  'integrity_mismatch',
  'incompatible_version',
] as const satisfies readonly ErrorReason[];

const ORDER = Object.keys(ERROR_REASONS) as ErrorReason[];

/**
 * Every reason a route can answer: its own ({@link Route.reasons}) and what the app answers before
 * any route does. Any request may be refused for its `Host` or fail unexpectedly (`forbidden`,
 * `internal`); a route behind a key may find none (`unauthorized`) or the wrong role or a
 * cross-site `Origin` (`forbidden`); `POST`, `PATCH` and `DELETE` refuse a body that is not JSON
 * (`unsupported_media_type`); a body is read under the size and shape caps (`payload_too_large`,
 * `invalid_request`), a query and a checked parameter are parsed strictly (`invalid_request`). In
 * the order of `ERROR_REASONS`, each once.
 *
 * @example
 * ```ts
 * routeReasons(API_ROUTES.services.refresh); // ['invalid_request', 'unauthorized', 'forbidden', …]
 * ```
 */
export function routeReasons(route: Route): ErrorReason[] {
  const reasons = new Set<ErrorReason>(['forbidden', 'internal', ...route.reasons]);
  if (route.role !== 'none') reasons.add('unauthorized');
  if (route.method !== 'GET') reasons.add('unsupported_media_type');
  if (route.body) {
    reasons.add('invalid_request');
    reasons.add('payload_too_large');
  }
  if (route.query || Object.values(route.params).some((param) => param.checked))
    reasons.add('invalid_request');
  return ORDER.filter((reason) => reasons.has(reason));
}
