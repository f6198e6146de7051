export type { AppEnv, Caller, HttpLogger } from './app-env';
export { bodyJsonSchema } from './body-json-schema';
export { callerProcesses } from './caller-processes';
export { type CreateAppOptions, createApp, DEFAULT_APP_LIMITS } from './create-app';
export { createMetricsApp, type MetricsAppOptions } from './metrics-app';
export { type BearerAuthOptions, bearerAuth, type OAuthBearerOptions } from './middleware/bearer-auth';
export {
  createRateLimiter,
  type RateLimit,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitOptions,
  rateLimit,
} from './middleware/rate-limit';
export { REQUEST_ID_HEADER } from './middleware/request-id';
export { type RoleGuardOptions, roleGuard } from './middleware/role-guard';
export { openApiDocument } from './openapi';
export type { LogSource, MetricsSource, RequestObservation } from './operations';
export { renderReference } from './reference';
export type { RouteGroup, RouteGroupAuth, RouteGroupCors } from './route-groups';
