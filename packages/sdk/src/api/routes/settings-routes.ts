import type {
  ConfigResponse,
  JsonPatch,
  SchemaResponse,
  SecretsPresenceResponse,
  SecretsUpdatedResponse,
} from '../common';
import type { ErrorReason } from '../errors';
import { JSON_PATCH_SCHEMA, ref } from '../record-schemas';
import { CHECKED_ID, jsonAnswer, jsonBody, type RouteParam } from '../route';
import { SETTINGS_REASONS } from '../route-reasons';

/** What settings routes of one kind of owner (modules, services) can answer besides the derived reasons. */
export interface SettingsReasons {
  /** Reading its config or which secrets are set. */
  readonly read: readonly ErrorReason[];
  /** Reading its schemas. */
  readonly schema: readonly ErrorReason[];
  /** Patching its config or secrets; the settings checks are added. */
  readonly patch: readonly ErrorReason[];
}

/**
 * The config and secrets routes of one kind of owner below `base` (`/modules/:moduleId`,
 * `/services/:serviceId`): `GET`/`PATCH config`, `GET`/`PATCH secrets` (which never answers
 * values) and both schemas. The server serves both kinds with one set of handlers.
 */
export function settingsRoutes<const Base extends string, const Id extends string>(
  base: Base,
  id: Id,
  owner: 'module' | 'service',
  reasons: SettingsReasons,
) {
  const params = { [id]: CHECKED_ID } as { readonly [K in Id]: RouteParam<string> };
  const patch = [...reasons.patch, ...SETTINGS_REASONS];
  return {
    getConfig: {
      method: 'GET',
      path: `${base}/config` as `${Base}/config`,
      role: 'admin',
      summary: `The ${owner}'s config (defaults shown)`,
      params,
      answer: jsonAnswer<ConfigResponse>(ref('Config')),
      reasons: reasons.read,
    },
    patchConfig: {
      method: 'PATCH',
      path: `${base}/config` as `${Base}/config`,
      role: 'admin',
      summary: `JSON-patch the ${owner}'s config; validated against its config schema`,
      params,
      body: jsonBody<JsonPatch>(JSON_PATCH_SCHEMA),
      answer: jsonAnswer<ConfigResponse>(ref('Config')),
      reasons: patch,
    },
    getSecrets: {
      method: 'GET',
      path: `${base}/secrets` as `${Base}/secrets`,
      role: 'admin',
      summary: `Which of the ${owner}'s secrets are set (JSON pointers, never values)`,
      params,
      answer: jsonAnswer<SecretsPresenceResponse>(ref('SecretsPresence')),
      reasons: reasons.read,
    },
    patchSecrets: {
      method: 'PATCH',
      path: `${base}/secrets` as `${Base}/secrets`,
      role: 'admin',
      summary: `JSON-patch the ${owner}'s secrets (no \`test\`); stored encrypted`,
      params,
      body: jsonBody<JsonPatch>(JSON_PATCH_SCHEMA),
      answer: jsonAnswer<SecretsUpdatedResponse>(ref('SecretsUpdated')),
      reasons: patch,
    },
    configSchema: {
      method: 'GET',
      path: `${base}/config/schema` as `${Base}/config/schema`,
      role: 'admin',
      summary: `The ${owner}'s config schema`,
      params,
      answer: jsonAnswer<SchemaResponse>({ type: 'object' }),
      reasons: reasons.schema,
    },
    secretsSchema: {
      method: 'GET',
      path: `${base}/secrets/schema` as `${Base}/secrets/schema`,
      role: 'admin',
      summary: `The ${owner}'s secrets schema`,
      params,
      answer: jsonAnswer<SchemaResponse>({ type: 'object' }),
      reasons: reasons.schema,
    },
  } as const;
}
