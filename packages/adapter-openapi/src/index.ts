export type { ToolResult } from './decode-response';
export { generateDefinition } from './generate-definition';
export type { OAuthFlowPlan, OAuthSchemePlan } from './oauth-flows';
export { createOpenApiAdapter } from './openapi-adapter';
export {
  configSchema,
  instantiate,
  manifest,
  openapiModule,
  openapiModule as default,
  secretsSchema,
} from './openapi-module';
