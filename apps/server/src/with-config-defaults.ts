import type { AdapterModule, BuiltinModule, EnvironmentModule, JSONSchema } from '@cyrnel/sdk';

/**
 * The same built-in module with other `default`s in its config schema. The host fills a
 * module's config from these defaults, so the server's limit flags reach the environment's
 * own caps without storing anything: a value an operator stores in the module's config still
 * wins. Only properties the schema declares can be given.
 */
export function withConfigDefaults<M extends AdapterModule | EnvironmentModule>(
  module: BuiltinModule<M>,
  defaults: Readonly<Record<string, unknown>>,
): BuiltinModule<M> {
  const properties = (module.configSchema.properties ?? {}) as Record<string, JSONSchema>;
  const next: Record<string, JSONSchema> = { ...properties };
  for (const [key, value] of Object.entries(defaults)) {
    const property = properties[key];
    if (property === undefined) {
      throw new Error(`module ${module.manifest.id} has no config property "${key}"`);
    }
    next[key] = { ...property, default: value };
  }
  return {
    manifest: module.manifest,
    configSchema: { ...module.configSchema, properties: next },
    secretsSchema: module.secretsSchema,
    instantiate: () => module.instantiate(),
  };
}
