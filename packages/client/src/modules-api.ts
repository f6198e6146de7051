import type {
  InstallModuleRequest,
  ListResponse,
  ModuleDetail,
  ModuleListQuery,
  ModuleRecord,
  ModuleUpdateResult,
  PatchModuleRequest,
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
  /**
   * `POST /modules/install`: a module from npm or a registry (201); it starts disabled.
   *
   * @example
   * ```ts
   * const module = await client.modules.install({ source: '@acme/cyrnel-adapter-soap', version: '^1' });
   * await client.modules.setEnabled(module.id, true);
   * ```
   */
  install(input: InstallModuleRequest, options?: RequestOptions): Promise<ModuleDetail>;
  /** `POST /modules/:moduleId/update`: the newest version within its range. */
  update(moduleId: string, options?: RequestOptions): Promise<ModuleUpdateResult>;
  /** `PATCH /modules/:moduleId`: version range and auto-update of an installed module. */
  configure(moduleId: string, patch: PatchModuleRequest, options?: RequestOptions): Promise<ModuleDetail>;
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
    install: (input, options) =>
      transport.json({ method: 'POST', path: '/modules/install', body: input, options }),
    update: (moduleId, options) =>
      transport.json({ method: 'POST', path: url`/modules/${moduleId}/update`, options }),
    configure: (moduleId, patch, options) =>
      transport.json({ method: 'PATCH', path: url`/modules/${moduleId}`, body: patch, options }),
    ...createSettingsApi(transport, '/modules'),
  };
}
