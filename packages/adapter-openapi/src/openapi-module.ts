import type { AdapterModule, BuiltinModule, JSONSchema, ModuleInfo, PortableAdapter } from '@cyrnel/sdk';
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

/**
 * Where a sandbox process loads this module to make tool calls itself, without a round trip to the
 * host: the adapter keeps nothing but each service's snapshot and a connection pool, so it is
 * portable. The built entry,
 * also when this file runs from `src/` (tests).
 */
export const portable: PortableAdapter = {
  moduleUrl: import.meta.url.endsWith('.ts')
    ? new URL('../dist/index.js', import.meta.url).href
    : import.meta.url,
  exportName: 'openapiModule',
};

/** Create a fresh, not yet set-up adapter instance. */
export function instantiate(): AdapterModule {
  return { ...createOpenApiAdapter(), portable };
}

/** The built-in module object the server registers. */
export const openapiModule: BuiltinModule<AdapterModule> = {
  manifest,
  configSchema,
  secretsSchema,
  instantiate,
};
