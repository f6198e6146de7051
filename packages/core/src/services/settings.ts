import type { JSONSchema } from '@cyrnel/sdk';
import { isPlainObject } from '@cyrnel/sdk';
import type { JsonPatch } from '@cyrnel/sdk/api';
import type { CatalogStorage, SettingsOwner } from '../catalog/catalog-storage';
import { cyrnelError } from '../errors';
import { applyJsonPatch } from '../json/json-patch';
import { presentPointers } from '../json/json-pointer';
import type { SecretsVault } from '../secrets/secrets-vault';
import { fillDefaults, stripDefaults } from '../validation/fill-defaults';
import type { SchemaChecker } from '../validation/schema-checker';
import { validateAgainstSchema } from '../validation/schema-validation';
import { validateSecrets } from './validate-secrets';

/** The schemas an owner's settings are checked against (a module definition, a service row). */
export interface SettingsSchemas {
  readonly configSchema: JSONSchema;
  readonly secretsSchema: JSONSchema;
}

/** What a patch changed, with the way back (the caller restores when its follow-up fails). */
export interface PatchedSettings<T> {
  readonly value: T;
  /** Store the value from before the patch again. */
  restore(): Promise<void>;
}

/**
 * Config and secrets of modules and services: one mechanism for both kinds of owner. What a
 * change sets off (re-activating a module, re-hydrating a service) stays with the caller.
 *
 * @example
 * ```ts
 * const settings = createSettings(catalog, vault, now, checker);
 * const owner = { kind: 'service', id: 'github' } as const;
 * const { value } = await settings.patchConfig(owner, row, [{ op: 'add', path: '/baseUrl', value: 'https://x' }]);
 * ```
 */
export interface Settings {
  /** Stored config with defaults (not validated: shown as it is). */
  config(owner: SettingsOwner, schemas: SettingsSchemas): Promise<Record<string, unknown>>;
  /** Config and secrets to set the owner up with: validated, defaults applied; 400 `invalid_request` (`missing_secret`) otherwise. */
  forSetup(
    owner: SettingsOwner,
    schemas: SettingsSchemas,
  ): Promise<{ config: Record<string, unknown>; secrets: Record<string, unknown> }>;
  /** The config to set the owner up with: validated, defaults applied (its secrets not read). */
  setupConfig(
    owner: SettingsOwner,
    schemas: Pick<SettingsSchemas, 'configSchema'>,
  ): Promise<Record<string, unknown>>;
  /** Secrets from elsewhere (a connection's) checked against the owner's secrets schema, defaults applied. */
  checkSecrets(
    schemas: SettingsSchemas,
    secrets: Record<string, unknown>,
    field: string,
  ): Promise<Record<string, unknown>>;
  /** The stored config and decrypted secrets as they are, unchecked (what `generateDefinition` may use). */
  current(
    owner: SettingsOwner,
  ): Promise<{ config: Record<string, unknown>; secrets: Record<string, unknown> }>;
  /** Apply a JSON Patch to the config (defaults shown), validate and store it; answers the new config. */
  patchConfig(
    owner: SettingsOwner,
    schemas: SettingsSchemas,
    patch: JsonPatch,
  ): Promise<PatchedSettings<Record<string, unknown>>>;
  /** JSON pointers of the secrets stored, never their values. */
  secretsPresent(owner: SettingsOwner): Promise<string[]>;
  /** Apply a JSON Patch (no `test`: it would probe values) to the secrets, validate and store them. */
  patchSecrets(
    owner: SettingsOwner,
    schemas: SettingsSchemas,
    patch: JsonPatch,
  ): Promise<PatchedSettings<void>>;
}

/** Apply a patch whose result must stay a JSON object. */
function patchObject(
  current: Record<string, unknown>,
  patch: JsonPatch,
  field: 'config' | 'secrets',
): Record<string, unknown> {
  const next = applyJsonPatch(current, patch, `${field} patch`, { allowTest: field !== 'secrets' });
  if (!isPlainObject(next)) {
    throw cyrnelError('invalid_request', `${field} must stay a JSON object`, {
      details: [{ path: '/', message: 'must be an object' }],
    });
  }
  return next;
}

// A module's settings are checked when it activates, far from any request: the message names it.
// A service's are checked on the request that enables or patches it, which names it already.
const setupField = (owner: SettingsOwner, field: 'config' | 'secrets') =>
  owner.kind === 'module' ? `${field} of module ${owner.id}` : field;

/** Create the {@link Settings} service over the catalog port and the secrets vault. */
export function createSettings(
  catalog: CatalogStorage,
  vault: SecretsVault,
  now: () => Date,
  checker: SchemaChecker,
): Settings {
  const stored = async (owner: SettingsOwner) => (await catalog.getConfig(owner)) ?? {};
  const setupConfig = async (owner: SettingsOwner, configSchema: JSONSchema) =>
    validateAgainstSchema(checker, configSchema, await stored(owner), {
      field: setupField(owner, 'config'),
      applyDefaults: true,
    });
  return {
    async config(owner, { configSchema }) {
      return fillDefaults(configSchema, await stored(owner));
    },
    async current(owner) {
      return { config: await stored(owner), secrets: await vault.read(owner) };
    },
    async forSetup(owner, { configSchema, secretsSchema }) {
      const config = await setupConfig(owner, configSchema);
      const secrets = await validateSecrets(
        checker,
        secretsSchema,
        await vault.read(owner),
        setupField(owner, 'secrets'),
      );
      return { config, secrets };
    },
    setupConfig: (owner, { configSchema }) => setupConfig(owner, configSchema),
    checkSecrets: ({ secretsSchema }, secrets, field) =>
      validateSecrets(checker, secretsSchema, secrets, field),
    async patchConfig(owner, { configSchema }, patch) {
      const previous = await stored(owner);
      const next = patchObject(fillDefaults(configSchema, previous), patch, 'config');
      const config = await validateAgainstSchema(checker, configSchema, next, {
        field: 'config',
        applyDefaults: true,
      });
      await catalog.setConfig(owner, stripDefaults(configSchema, config), now().toISOString());
      return {
        value: config,
        restore: () => catalog.setConfig(owner, previous, now().toISOString()),
      };
    },
    async secretsPresent(owner) {
      return presentPointers(await vault.read(owner));
    },
    async patchSecrets(owner, { secretsSchema }, patch) {
      const previous = await vault.read(owner);
      const secrets = await validateSecrets(checker, secretsSchema, patchObject(previous, patch, 'secrets'));
      await vault.write(owner, secrets);
      return { value: undefined, restore: () => vault.write(owner, previous) };
    },
  };
}
