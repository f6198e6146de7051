import type {
  ConfigResponse,
  JsonPatch,
  SchemaResponse,
  SecretsPresenceResponse,
  SecretsUpdatedResponse,
} from '@cyrnel/sdk/api';
import type { RequestOptions } from './request-options';
import type { Transport } from './transport';
import { url } from './url-path';

/**
 * Config and secrets of one kind of owner: `/modules/:moduleId/…` or `/services/:serviceId/…`.
 * Both groups of the client share these methods.
 */
export interface SettingsApi {
  /** `GET …/:id/config`. */
  getConfig(id: string, options?: RequestOptions): Promise<ConfigResponse>;
  /** `PATCH …/:id/config` with a JSON Patch. */
  patchConfig(id: string, patch: JsonPatch, options?: RequestOptions): Promise<ConfigResponse>;
  /** `GET …/:id/secrets`: which secrets are set, never their values. */
  getSecrets(id: string, options?: RequestOptions): Promise<SecretsPresenceResponse>;
  /** `PATCH …/:id/secrets` with a JSON Patch. */
  patchSecrets(id: string, patch: JsonPatch, options?: RequestOptions): Promise<SecretsUpdatedResponse>;
  /** `GET …/:id/config/schema`. */
  configSchema(id: string, options?: RequestOptions): Promise<SchemaResponse>;
  /** `GET …/:id/secrets/schema`. */
  secretsSchema(id: string, options?: RequestOptions): Promise<SchemaResponse>;
}

/**
 * Build the settings methods of the owners below `root`.
 *
 * @example
 * ```ts
 * const settings = createSettingsApi(transport, '/services');
 * await settings.patchConfig('github', [{ op: 'add', path: '/baseUrl', value: 'https://x' }]);
 * ```
 */
export function createSettingsApi(transport: Transport, root: '/modules' | '/services'): SettingsApi {
  const at = (id: string, rest: string) => `${root}${url`/${id}`}${rest}`;
  return {
    getConfig: (id, options) => transport.json({ method: 'GET', path: at(id, '/config'), options }),
    patchConfig: (id, patch, options) =>
      transport.json({ method: 'PATCH', path: at(id, '/config'), body: patch, options }),
    getSecrets: (id, options) => transport.json({ method: 'GET', path: at(id, '/secrets'), options }),
    patchSecrets: (id, patch, options) =>
      transport.json({ method: 'PATCH', path: at(id, '/secrets'), body: patch, options }),
    configSchema: (id, options) => transport.json({ method: 'GET', path: at(id, '/config/schema'), options }),
    secretsSchema: (id, options) =>
      transport.json({ method: 'GET', path: at(id, '/secrets/schema'), options }),
  };
}
