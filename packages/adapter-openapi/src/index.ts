export type { ToolResult } from './decode-response';
export { generateDefinition } from './generate-definition';
export { createOpenApiAdapter } from './openapi-adapter';
export {
  configSchema,
  instantiate,
  manifest,
  openapiModule,
  openapiModule as default,
  secretsSchema,
} from './openapi-module';
