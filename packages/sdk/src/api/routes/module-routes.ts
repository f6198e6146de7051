import { EMPTY_BODY, ENABLED_BODY, INSTALL_MODULE_BODY, PATCH_MODULE_BODY } from '../body-fields';
import type { SetEnabledRequest } from '../common';
import type { ListResponse } from '../lists';
import type {
  InstallModuleRequest,
  ModuleDetail,
  ModuleListQuery,
  ModuleRecord,
  ModuleUpdateResult,
  PatchModuleRequest,
  ReloadModulesResponse,
} from '../modules';
import { page, ref } from '../record-schemas';
import { CHECKED_ID, defineRoute, jsonAnswer, objectBody, PAGE_QUERY, queryParams } from '../route';
import { REGISTRY_REASONS } from '../route-reasons';
import { settingsRoutes } from './settings-routes';

/** The filters of `GET /modules`; the host checks their values (`type` must name a module type). */
export const MODULE_LIST_QUERY = {
  ...PAGE_QUERY,
  type: { type: 'string' },
  enabled: { type: 'boolean' },
  isBuiltin: { type: 'boolean' },
  query: { type: 'string' },
} as const;

const params = { moduleId: CHECKED_ID };

/** `/modules`: adapter and environment modules, their installs, flags, config and secrets. */
export const MODULE_ROUTES = {
  list: defineRoute({
    method: 'GET',
    path: '/modules',
    role: 'admin',
    summary: 'List modules',
    params: {},
    query: queryParams<ModuleListQuery>(MODULE_LIST_QUERY),
    answer: jsonAnswer<ListResponse<ModuleRecord>>(page('ModuleRecord')),
    reasons: [],
  }),
  reload: defineRoute({
    method: 'POST',
    path: '/modules/reload',
    role: 'admin',
    summary: 'Scan the modules directory again; answers what loaded and what was skipped and why',
    params: {},
    body: objectBody<Record<string, never>>(EMPTY_BODY, { optional: true }),
    answer: jsonAnswer<ReloadModulesResponse>(ref('ModuleReload')),
    reasons: [],
  }),
  install: defineRoute({
    method: 'POST',
    path: '/modules/install',
    role: 'admin',
    summary: 'Install a module from npm or a registry (disabled)',
    params: {},
    body: objectBody<InstallModuleRequest>(INSTALL_MODULE_BODY),
    answer: jsonAnswer<ModuleDetail>(ref('ModuleDetail'), 201),
    reasons: [...REGISTRY_REASONS, 'module_exists', 'module_builtin', 'invalid_module_archive'],
  }),
  get: defineRoute({
    method: 'GET',
    path: '/modules/:moduleId',
    role: 'admin',
    summary: 'One module with its schemas',
    params,
    answer: jsonAnswer<ModuleDetail>(ref('ModuleDetail')),
    reasons: ['module_not_found'],
  }),
  configure: defineRoute({
    method: 'PATCH',
    path: '/modules/:moduleId',
    role: 'admin',
    summary: "An installed module's version range and auto-update flag",
    params,
    body: objectBody<PatchModuleRequest>(PATCH_MODULE_BODY),
    answer: jsonAnswer<ModuleDetail>(ref('ModuleDetail')),
    reasons: ['module_not_found', 'module_builtin', 'not_from_registry'],
  }),
  update: defineRoute({
    method: 'POST',
    path: '/modules/:moduleId/update',
    role: 'admin',
    summary: 'Update an installed module within its range',
    params,
    body: objectBody<Record<string, never>>(EMPTY_BODY, { optional: true }),
    answer: jsonAnswer<ModuleUpdateResult>(ref('ModuleUpdate')),
    reasons: [
      'module_not_found',
      'module_builtin',
      'not_from_registry',
      ...REGISTRY_REASONS,
      'invalid_module_archive',
    ],
  }),
  setEnabled: defineRoute({
    method: 'POST',
    path: '/modules/:moduleId/enabled',
    role: 'admin',
    summary: 'Enable or disable a module',
    params,
    body: objectBody<SetEnabledRequest>(ENABLED_BODY),
    answer: jsonAnswer<ModuleDetail>(ref('ModuleDetail')),
    reasons: ['module_not_found', 'module_missing', 'module_setup_failed'],
  }),
  ...settingsRoutes('/modules/:moduleId', 'moduleId', 'module', {
    read: ['module_not_found', 'module_missing'],
    schema: ['module_not_found'],
    // Saved settings re-activate an enabled module.
    patch: ['module_not_found', 'module_missing', 'module_setup_failed'],
  }),
};
