import type { ModuleDefinition as ModuleDefinitionLike } from '@cyrnel/sdk';
import type { JsonPatch } from '@cyrnel/sdk/api';
import type { CatalogStorage } from './catalog-storage';
import { ValidationError } from './errors';
import { fillDefaults, stripDefaults } from './fill-defaults';
import { applyJsonPatch } from './json-patch';
import { presentPointers } from './json-pointer';
import { isPlainObject } from './json-values';
import { validateAgainstSchema } from './schema-validation';
import type { SecretsVault } from './secrets-vault';
import { validateSecrets } from './validate-secrets';
import type { SchemaChecker } from './validation/schema-checker';

/** Config and secrets of one module, validated against the module's schemas. */
export interface ModuleSettings {
  /** Stored config with defaults (not validated: shown as it is). */
  config(id: string, definition: ModuleDefinitionLike): Promise<Record<string, unknown>>;
  /** Config and secrets for `setup`: validated, defaults applied; `ValidationError` otherwise. */
  forSetup(
    id: string,
    definition: ModuleDefinitionLike,
  ): Promise<{ config: Record<string, unknown>; secrets: Record<string, unknown> }>;
  patchConfig(
    id: string,
    definition: ModuleDefinitionLike,
    patch: JsonPatch,
  ): Promise<Record<string, unknown>>;
  secretsPresent(id: string): Promise<string[]>;
  patchSecrets(id: string, definition: ModuleDefinitionLike, patch: JsonPatch): Promise<void>;
}

/** Apply a patch whose result must stay a JSON object. */
export function patchObject(
  current: Record<string, unknown>,
  patch: unknown,
  field: 'config' | 'secrets',
): Record<string, unknown> {
  const next = applyJsonPatch(current, patch, `${field} patch`, { allowTest: field !== 'secrets' });
  if (!isPlainObject(next)) {
    throw new ValidationError(`${field} must stay a JSON object`, [
      { path: '/', message: 'must be an object' },
    ]);
  }
  return next;
}

/** Create the module half of config/secrets handling. */
export function createModuleSettings(
  catalog: CatalogStorage,
  vault: SecretsVault,
  now: () => Date,
  checker: SchemaChecker,
): ModuleSettings {
  const stored = async (id: string) => (await catalog.getModuleConfig(id)) ?? {};
  return {
    async config(id, definition) {
      return fillDefaults(definition.configSchema, await stored(id));
    },
    async forSetup(id, definition) {
      const config = await validateAgainstSchema(checker, definition.configSchema, await stored(id), {
        field: `config of module ${id}`,
        applyDefaults: true,
      });
      const secrets = await validateSecrets(
        checker,
        definition.secretsSchema,
        await vault.read('module', id),
        `secrets of module ${id}`,
      );
      return { config, secrets };
    },
    async patchConfig(id, definition, patch) {
      const next = patchObject(fillDefaults(definition.configSchema, await stored(id)), patch, 'config');
      const config = await validateAgainstSchema(checker, definition.configSchema, next, {
        field: 'config',
        applyDefaults: true,
      });
      await catalog.setModuleConfig(id, stripDefaults(definition.configSchema, config), now().toISOString());
      return config;
    },
    async secretsPresent(id) {
      return presentPointers(await vault.read('module', id));
    },
    async patchSecrets(id, definition, patch) {
      const next = patchObject(await vault.read('module', id), patch, 'secrets');
      const secrets = await validateSecrets(checker, definition.secretsSchema, next);
      await vault.write('module', id, secrets);
    },
  };
}
