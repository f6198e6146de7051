/**
 * @deprecated The address guard and the definition download live in `@cyrnel/core` now; these
 * re-exports keep old imports working.
 */
export {
  type AddressGuard,
  type AddressGuardOptions,
  BLOCKED_CIDRS,
  type Cidr,
  cidrContains,
  createAddressGuard,
  type DownloadDefinitionOptions,
  downloadDefinition,
  parseAddress,
  parseCidr,
} from '@cyrnel/core';
export type { AppEnv, Caller, HttpLogger } from './app-env';
export { type CreateAppOptions, createApp } from './create-app';
export { type BearerAuthOptions, bearerAuth } from './middleware/bearer-auth';
export { REQUEST_ID_HEADER } from './middleware/request-id';
export { AGENT_ROUTES, type AgentRoute, type RoleGuardOptions, roleGuard } from './middleware/role-guard';
export type { RouteGroup, RouteGroupAuth } from './route-groups';
