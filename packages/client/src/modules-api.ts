import type {
  ConfigResponse,
  JsonPatch,
  ListResponse,
  ModuleDetail,
  ModuleListQuery,
  ModuleRecord,
  ReloadModulesResponse,
  SchemaResponse,
  SecretsPresenceResponse,
  SecretsUpdatedResponse,
} from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import type { Transport } from './transport';
import { url } from './url-path';

/** `/modules` endpoints: adapters and environments. */
export interface ModulesApi {
  /** `GET /modules`: one page. */
  list(query?: ModuleListQuery, options?: RequestOptions): Promise<ListResponse<ModuleRecord>>;
  /** Every module matching `query`, page after page. */
  iterate(query?: ModuleListQuery, options?: RequestOptions): AsyncGenerator<ModuleRecord, void, undefined>;
  /** `GET /modules/:moduleId`. */
  get(moduleId: string, options?: RequestOptions): Promise<ModuleDetail>;
  /** `POST /modules/:moduleId/enabled`. */
  setEnabled(moduleId: string, enabled: boolean, options?: RequestOptions): Promise<ModuleDetail>;
  /** `POST /modules/reload`: rescan the modules directory. */
  reload(options?: RequestOptions): Promise<ReloadModulesResponse>;
  /** `GET /modules/:moduleId/config`. */
  getConfig(moduleId: string, options?: RequestOptions): Promise<ConfigResponse>;
  /** `PATCH /modules/:moduleId/config` with a JSON Patch. */
  patchConfig(moduleId: string, patch: JsonPatch, options?: RequestOptions): Promise<ConfigResponse>;
  /** `GET /modules/:moduleId/secrets`: which secrets are set. */
  getSecrets(moduleId: string, options?: RequestOptions): Promise<SecretsPresenceResponse>;
  /** `PATCH /modules/:moduleId/secrets` with a JSON Patch. */
  patchSecrets(moduleId: string, patch: JsonPatch, options?: RequestOptions): Promise<SecretsUpdatedResponse>;
  /** `GET /modules/:moduleId/config/schema`. */
  configSchema(moduleId: string, options?: RequestOptions): Promise<SchemaResponse>;
  /** `GET /modules/:moduleId/secrets/schema`. */
  secretsSchema(moduleId: string, options?: RequestOptions): Promise<SchemaResponse>;
}

/** Build the `modules` group over a transport. */
export function createModulesApi(transport: Transport): ModulesApi {
  const list: ModulesApi['list'] = (query, options) =>
    transport.json({ method: 'GET', path: '/modules', query, options });
  return {
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    get: (moduleId, options) => transport.json({ method: 'GET', path: url`/modules/${moduleId}`, options }),
    setEnabled: (moduleId, enabled, options) =>
      transport.json({ method: 'POST', path: url`/modules/${moduleId}/enabled`, body: { enabled }, options }),
    reload: (options) => transport.json({ method: 'POST', path: '/modules/reload', options }),
    getConfig: (moduleId, options) =>
      transport.json({ method: 'GET', path: url`/modules/${moduleId}/config`, options }),
    patchConfig: (moduleId, patch, options) =>
      transport.json({ method: 'PATCH', path: url`/modules/${moduleId}/config`, body: patch, options }),
    getSecrets: (moduleId, options) =>
      transport.json({ method: 'GET', path: url`/modules/${moduleId}/secrets`, options }),
    patchSecrets: (moduleId, patch, options) =>
      transport.json({ method: 'PATCH', path: url`/modules/${moduleId}/secrets`, body: patch, options }),
    configSchema: (moduleId, options) =>
      transport.json({ method: 'GET', path: url`/modules/${moduleId}/config/schema`, options }),
    secretsSchema: (moduleId, options) =>
      transport.json({ method: 'GET', path: url`/modules/${moduleId}/secrets/schema`, options }),
  };
}
