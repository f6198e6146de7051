export type { AppEnv, Caller, HttpLogger } from './app-env';
export { type CreateAppOptions, createApp } from './create-app';
export { type BearerAuthOptions, bearerAuth } from './middleware/bearer-auth';
export { REQUEST_ID_HEADER } from './middleware/request-id';
export { AGENT_ROUTES, type AgentRoute, type RoleGuardOptions, roleGuard } from './middleware/role-guard';
export { API_ROUTES, bodyJsonSchema, openApiDocument } from './openapi';
export { renderReference } from './reference';
export type { RouteGroup, RouteGroupAuth } from './route-groups';
