import {
  EMPTY_BODY,
  ENABLED_BODY,
  INSTALL_FROM_REGISTRY_BODY,
  SERVICE_INSTALL_BODY,
  SERVICE_POLICY_BODY,
  SERVICE_UPDATE_BODY,
} from '../body-fields';
import type { SetEnabledRequest } from '../common';
import type { ServiceStats } from '../efficiency';
import type { ListResponse } from '../lists';
import type { ServicePolicy } from '../policies';
import { page, ref } from '../record-schemas';
import {
  CHECKED_ID,
  defineRoute,
  jsonAnswer,
  noContent,
  objectBody,
  PAGE_QUERY,
  queryParams,
} from '../route';
import { ADAPTER_REASONS, DEFINITION_REASONS, REGISTRY_REASONS, SETTINGS_REASONS } from '../route-reasons';
import type {
  InstallFromRegistryRequest,
  InstallServiceRequest,
  RegistryUpdateResult,
  ServiceDetail,
  ServiceListQuery,
  ServiceRecord,
  ServiceRefreshResult,
  UpdateServiceRequest,
} from '../services';
import { settingsRoutes } from './settings-routes';

/** The filters of `GET /services`. */
export const SERVICE_LIST_QUERY = {
  ...PAGE_QUERY,
  query: { type: 'string' },
  enabled: { type: 'boolean' },
  adapter: { type: 'string' },
  failed: { type: 'boolean' },
} as const;

const params = { serviceId: CHECKED_ID };
/** Enabling a service: its settings checked, its adapter active, the service hydrated. */
const HYDRATION = ['module_unavailable', ...SETTINGS_REASONS, ...ADAPTER_REASONS] as const;

/** `/services`: installed services, their definitions, flags, config and secrets. */
export const SERVICE_ROUTES = {
  list: defineRoute({
    method: 'GET',
    path: '/services',
    role: 'admin',
    summary: 'List services',
    params: {},
    query: queryParams<ServiceListQuery>(SERVICE_LIST_QUERY),
    answer: jsonAnswer<ListResponse<ServiceRecord>>(page('ServiceRecord')),
    reasons: [],
  }),
  install: defineRoute({
    method: 'POST',
    path: '/services',
    role: 'admin',
    summary: 'Install a service from a definition text or a URL',
    params: {},
    body: objectBody<InstallServiceRequest>(SERVICE_INSTALL_BODY),
    answer: jsonAnswer<ServiceDetail>(ref('ServiceDetail'), 201),
    reasons: ['service_exists', ...DEFINITION_REASONS, ...HYDRATION],
  }),
  installFromRegistry: defineRoute({
    method: 'POST',
    path: '/services/install',
    role: 'admin',
    summary: 'Install a service from a registry entry',
    params: {},
    body: objectBody<InstallFromRegistryRequest>(INSTALL_FROM_REGISTRY_BODY),
    answer: jsonAnswer<ServiceDetail>(ref('ServiceDetail'), 201),
    reasons: ['service_exists', ...REGISTRY_REASONS, 'invalid_definition', ...HYDRATION],
  }),
  updateFromRegistry: defineRoute({
    method: 'POST',
    path: '/services/:serviceId/update',
    role: 'admin',
    summary: "Update a registry-installed service to its entry's latest version",
    params,
    body: objectBody<Record<string, never>>(EMPTY_BODY, { optional: true }),
    answer: jsonAnswer<RegistryUpdateResult>(ref('ServiceUpdate')),
    reasons: [
      'service_not_found',
      'not_from_registry',
      ...REGISTRY_REASONS,
      'invalid_definition',
      ...HYDRATION,
    ],
  }),
  refresh: defineRoute({
    method: 'POST',
    path: '/services/:serviceId/refresh',
    role: 'admin',
    summary: "List the service's tools again through its adapter (MCP servers)",
    params,
    body: objectBody<Record<string, never>>(EMPTY_BODY, { optional: true }),
    answer: jsonAnswer<ServiceRefreshResult>(ref('ServiceRefresh')),
    reasons: ['service_not_found', 'refresh_not_supported', 'invalid_definition', ...HYDRATION],
  }),
  get: defineRoute({
    method: 'GET',
    path: '/services/:serviceId',
    role: 'admin',
    summary: 'One service with its schemas',
    params,
    answer: jsonAnswer<ServiceDetail>(ref('ServiceDetail')),
    reasons: ['service_not_found'],
  }),
  update: defineRoute({
    method: 'PATCH',
    path: '/services/:serviceId',
    role: 'admin',
    summary:
      "Replace the service's definition (text or URL); the same text changes nothing, a changed one leaves the service disabled until it is enabled again",
    params,
    body: objectBody<UpdateServiceRequest>(SERVICE_UPDATE_BODY),
    answer: jsonAnswer<ServiceDetail>(ref('ServiceDetail')),
    reasons: ['service_not_found', ...DEFINITION_REASONS, ...HYDRATION],
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/services/:serviceId',
    role: 'admin',
    summary: 'Delete a service',
    params,
    answer: noContent(),
    reasons: ['service_not_found'],
  }),
  setEnabled: defineRoute({
    method: 'POST',
    path: '/services/:serviceId/enabled',
    role: 'admin',
    summary: 'Enable (config and secrets validated, then hydrated) or disable a service',
    params,
    body: objectBody<SetEnabledRequest>(ENABLED_BODY),
    answer: jsonAnswer<ServiceDetail>(ref('ServiceDetail')),
    // An adapter of a new version regenerates the service first.
    reasons: ['service_not_found', 'service_regeneration_failed', ...HYDRATION],
  }),
  setObserveOutputs: defineRoute({
    method: 'POST',
    path: '/services/:serviceId/observe-outputs',
    role: 'admin',
    summary:
      "Turn on or off the learning of its tools' result shapes (tools without an output schema); off forgets what was learned",
    params,
    body: objectBody<SetEnabledRequest>(ENABLED_BODY),
    answer: jsonAnswer<ServiceDetail>(ref('ServiceDetail')),
    reasons: ['service_not_found'],
  }),
  stats: defineRoute({
    method: 'GET',
    path: '/services/:serviceId/stats',
    role: 'admin',
    summary:
      "The efficiency meter of code mode over the service's stored runs: calls, bytes read from its tools and returned to the model, time",
    params,
    answer: jsonAnswer<ServiceStats>(ref('ServiceStats')),
    reasons: ['service_not_found'],
  }),
  getPolicy: defineRoute({
    method: 'GET',
    path: '/services/:serviceId/policy',
    role: 'admin',
    summary: "The service's policy rules (allow, ask, block by tool and annotation; data-flow labels)",
    params,
    answer: jsonAnswer<ServicePolicy>(ref('ServicePolicy')),
    reasons: ['service_not_found'],
  }),
  setPolicy: defineRoute({
    method: 'PUT',
    path: '/services/:serviceId/policy',
    role: 'admin',
    summary: "Replace the service's policy rules",
    params,
    body: objectBody<ServicePolicy>(SERVICE_POLICY_BODY, { optional: true }),
    answer: jsonAnswer<ServicePolicy>(ref('ServicePolicy')),
    reasons: ['service_not_found', 'tool_not_found'],
  }),
  ...settingsRoutes('/services/:serviceId', 'serviceId', 'service', {
    read: ['service_not_found'],
    schema: ['service_not_found'],
    // Saved settings of an enabled service hydrate it again.
    patch: ['service_not_found', ...ADAPTER_REASONS],
  }),
};
