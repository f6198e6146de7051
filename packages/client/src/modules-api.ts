import {
  API_ROUTES,
  type InstallModuleRequest,
  type ListResponse,
  type ModuleDetail,
  type ModuleListQuery,
  type ModuleRecord,
  type ModuleUpdateResult,
  type PatchModuleRequest,
  type ReloadModulesResponse,
} from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';
import { createSettingsApi, type SettingsApi } from './settings-api';

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

const routes = API_ROUTES.modules;

/** Build the `modules` group over the route caller. */
export function createModulesApi(call: RouteCaller): ModulesApi {
  const list: ModulesApi['list'] = (query, options) => call(routes.list, { query }, options);
  return {
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    get: (moduleId, options) => call(routes.get, { params: { moduleId } }, options),
    setEnabled: (moduleId, enabled, options) =>
      call(routes.setEnabled, { params: { moduleId }, body: { enabled } }, options),
    reload: (options) => call(routes.reload, {}, options),
    install: (input, options) => call(routes.install, { body: input }, options),
    update: (moduleId, options) => call(routes.update, { params: { moduleId } }, options),
    configure: (moduleId, patch, options) =>
      call(routes.configure, { params: { moduleId }, body: patch }, options),
    ...createSettingsApi(call, routes, 'moduleId'),
  };
}
