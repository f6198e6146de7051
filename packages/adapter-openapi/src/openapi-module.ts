import type { AdapterModule, BuiltinModule, JSONSchema, ModuleInfo } from '@cyrnel/sdk';
import { version } from '../package.json';
import { createOpenApiAdapter } from './openapi-adapter';

/** The built-in module's manifest (module id `openapi`). */
export const manifest: ModuleInfo = {
  id: 'openapi',
  name: 'OpenAPI',
  description: 'Turns OpenAPI 3.0/3.1 and Swagger 2.0 documents into tools that call the described HTTP API',
  type: 'adapter',
  version, // from package.json: changesets bumps only that
};

/** The module's own configuration schema: the adapter has no module-level settings. */
export const configSchema: JSONSchema = { type: 'object', properties: {}, additionalProperties: false };

/** The module's own secrets schema: per-service secrets live on each service instead. */
export const secretsSchema: JSONSchema = { type: 'object', properties: {}, additionalProperties: false };

/** Create a fresh, not yet set-up adapter instance. */
export function instantiate(): AdapterModule {
  return createOpenApiAdapter();
}

/** The built-in module object the server registers. */
export const openapiModule: BuiltinModule<AdapterModule> = {
  manifest,
  configSchema,
  secretsSchema,
  instantiate,
};
