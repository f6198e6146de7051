import type {
  ListResponse,
  ModuleDetail,
  ModuleListQuery,
  ModuleRecord,
  ReloadModulesResponse,
} from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import { createSettingsApi, type SettingsApi } from './settings-api';
import type { Transport } from './transport';
import { url } from './url-path';

/** `/modules` endpoints: adapters and environments. */
export interface ModulesApi extends SettingsApi {
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
    ...createSettingsApi(transport, '/modules'),
  };
}
