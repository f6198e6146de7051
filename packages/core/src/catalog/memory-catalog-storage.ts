import type { ServicePolicy } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import type { SealedSecrets } from '../secrets/secrets-cipher';
import type {
  CatalogStorage,
  ModuleRow,
  ServiceDefinitionFields,
  ToolRow,
  ToolSearchQuery,
} from './catalog-storage';
import {
  compare,
  copy,
  definitionRow,
  detailRow,
  type MemoryService,
  type MemoryTool,
  ownerKey,
  serviceRow,
  toolRow,
  toolsOf,
} from './memory-catalog-rows';
import {
  defaultSecrets,
  type MemoryConnections,
  memoryConnectionMethods,
  setDefaultSecrets,
} from './memory-connections';
import { memoryObservedOutputMethods } from './memory-observed-outputs';
import { createMemoryToolIndex, type MemoryToolIndex } from './memory-tool-index';
import { searchMemoryTools } from './memory-tool-search';

const contains = (text: string, query: string) => text.toLowerCase().includes(query.toLowerCase());

/** What the storage keeps, shared by its groups of methods. */
interface MemoryCatalog {
  readonly modules: Map<string, ModuleRow>;
  /** Config and sealed secrets by `ownerKey`. */
  readonly configs: Map<string, Record<string, unknown>>;
  readonly secrets: Map<string, SealedSecrets>;
  readonly services: Map<string, MemoryService>;
  /** Policy rules by service id. */
  readonly policies: Map<string, ServicePolicy>;
  /** Connections by service id and name; a service's secrets are its `default` connection's. */
  readonly connections: MemoryConnections;
  readonly index: MemoryToolIndex;
}

const sortedServices = (state: MemoryCatalog) =>
  [...state.services.values()].sort((a, b) => compare(a.row.id, b.row.id));

function toolOf(state: MemoryCatalog, serviceId: string, toolId: string) {
  const service = state.services.get(serviceId);
  const tool = service?.byId.get(toolId);
  return service && tool ? { service, tool } : undefined;
}

function moduleMethods({ modules }: MemoryCatalog) {
  return {
    listModules: async () =>
      [...modules.values()].sort((a, b) => compare(a.id, b.id)).map((row) => ({ ...row })),
    async insertModule(row) {
      if (modules.has(row.id)) throw new Error(`module ${row.id} already stored`);
      modules.set(row.id, { ...row });
    },
    async updateModule(id, change) {
      const row = modules.get(id);
      if (row) modules.set(id, { ...row, ...change });
    },
  } satisfies Pick<CatalogStorage, 'listModules' | 'insertModule' | 'updateModule'>;
}

function settingsMethods({ configs, secrets, connections }: MemoryCatalog) {
  return {
    getConfig: async (owner) => copy(configs.get(ownerKey(owner))),
    async setConfig(owner, config) {
      configs.set(ownerKey(owner), copy(config));
    },
    getSecrets: async (owner) =>
      owner.kind === 'service' ? defaultSecrets(connections, owner.id) : copy(secrets.get(ownerKey(owner))),
    async setSecrets(owner, sealed, at) {
      if (owner.kind === 'service') setDefaultSecrets(connections, owner.id, sealed, at);
      else secrets.set(ownerKey(owner), copy(sealed));
    },
  } satisfies Pick<CatalogStorage, 'getConfig' | 'setConfig' | 'getSecrets' | 'setSecrets'>;
}

const sharedSchemas = (schemas: ServiceDefinitionFields['schemas']) =>
  schemas && Object.keys(schemas).length > 0 ? copy({ ...schemas }) : undefined;

function serviceMethods(state: MemoryCatalog) {
  const { services, index } = state;
  const settingsOf = (id: string) => ownerKey({ kind: 'service', id });
  return {
    async listServices(query) {
      const rows = [];
      for (const service of sortedServices(state)) {
        const { row } = service;
        if (query.limit !== undefined && rows.length >= query.limit) break;
        if (query.afterId !== undefined && row.id <= query.afterId) continue;
        if (query.enabled !== undefined && row.enabled !== query.enabled) continue;
        if (query.adapter !== undefined && row.adapter !== query.adapter) continue;
        const text = query.query;
        if (text && ![row.id, row.name, row.description].some((field) => contains(field, text))) continue;
        rows.push(serviceRow(service));
      }
      return rows;
    },
    async getService(id) {
      const service = services.get(id);
      return service && serviceRow(service);
    },
    async insertService(service) {
      if (services.has(service.id))
        throw cyrnelError('service_exists', `service ${service.id} already exists`);
      services.set(service.id, {
        row: {
          id: service.id,
          adapter: service.adapter,
          enabled: service.enabled,
          observeOutputs: true,
          ...definitionRow(service),
          createdAt: service.createdAt,
          updatedAt: service.createdAt,
        },
        definition: service.definition,
        schemas: sharedSchemas(service.schemas),
        ...toolsOf(service.tools),
      });
      index.add(service.id, service.name, service.tools);
      state.configs.set(settingsOf(service.id), copy(service.config));
      if (service.secrets)
        setDefaultSecrets(state.connections, service.id, service.secrets, service.createdAt);
    },
    async replaceServiceDefinition(id, fields, enabled, at) {
      const service = services.get(id);
      if (!service) throw cyrnelError('service_not_found', `service ${id} not found`);
      const tools = toolsOf(fields.tools);
      // What was learned of tools that remain stays (MCP servers change their lists at run time).
      for (const tool of tools.tools) {
        const learned = service.byId.get(tool.id)?.observedOutput;
        if (learned !== undefined) tool.observedOutput = learned;
      }
      service.row = { ...service.row, ...definitionRow(fields), enabled, updatedAt: at };
      service.definition = fields.definition;
      service.schemas = sharedSchemas(fields.schemas);
      service.tools = tools.tools;
      service.byId = tools.byId;
      index.remove(id);
      index.add(id, fields.name, fields.tools);
    },
    async setServiceEnabled(id, enabled, at) {
      const service = services.get(id);
      if (!service) return false;
      service.row = { ...service.row, enabled, updatedAt: at };
      return true;
    },
    async deleteService(id) {
      if (!services.delete(id)) return false;
      index.remove(id);
      state.configs.delete(settingsOf(id));
      state.connections.delete(id);
      state.policies.delete(id);
      return true;
    },
    getServiceDefinitionText: async (id) => services.get(id)?.definition,
    getServicePolicy: async (id) => (services.has(id) ? copy(state.policies.get(id) ?? {}) : undefined),
    async setServicePolicy(id, policy) {
      if (!services.has(id)) return false;
      state.policies.set(id, copy(policy));
      return true;
    },
    getServiceSchemas: async (id) => copy(services.get(id)?.schemas),
  } satisfies Pick<
    CatalogStorage,
    | 'listServices'
    | 'getService'
    | 'insertService'
    | 'replaceServiceDefinition'
    | 'setServiceEnabled'
    | 'deleteService'
    | 'getServiceDefinitionText'
    | 'getServiceSchemas'
    | 'getServicePolicy'
    | 'setServicePolicy'
  >;
}

/** Which tools a search may answer: both flags on, the adapter active, the service not left out. */
function callable(state: MemoryCatalog, query: ToolSearchQuery) {
  const adapters = new Set(query.adapters);
  const excluded = new Set(query.excludedServices ?? []);
  return (serviceId: string, toolId: string) => {
    if (excluded.has(serviceId) || (query.serviceId !== undefined && serviceId !== query.serviceId))
      return false;
    const found = toolOf(state, serviceId, toolId);
    if (!found) return false;
    return found.tool.enabled && found.service.row.enabled && adapters.has(found.service.row.adapter);
  };
}

async function searchTools(state: MemoryCatalog, query: ToolSearchQuery): Promise<ToolRow[]> {
  const limit = Math.max(0, Math.floor(query.limit));
  if (limit === 0) return [];
  const may = callable(state, query);
  if (query.text.trim() === '') {
    const rows = [];
    for (const service of sortedServices(state)) {
      for (const tool of service.tools) {
        if (rows.length >= limit) return rows;
        if (may(service.row.id, tool.id)) rows.push(toolRow(service, tool));
      }
    }
    return rows;
  }
  return searchMemoryTools(state.index, query, (tool) => may(tool.serviceId, tool.toolId)).map((tool) => {
    const found = toolOf(state, tool.serviceId, tool.toolId) as { service: MemoryService; tool: MemoryTool };
    return toolRow(found.service, found.tool);
  });
}

function toolMethods(state: MemoryCatalog) {
  return {
    async listTools(query) {
      const rows: ToolRow[] = [];
      const { after, limit } = query;
      for (const service of sortedServices(state)) {
        if (query.serviceId !== undefined && service.row.id !== query.serviceId) continue;
        if (after && service.row.id < after.serviceId) continue;
        for (const tool of service.tools) {
          if (limit !== undefined && rows.length >= limit) return rows;
          if (after && service.row.id === after.serviceId && tool.id <= after.toolId) continue;
          if (query.enabled !== undefined && tool.enabled !== query.enabled) continue;
          rows.push(toolRow(service, tool));
        }
      }
      return rows;
    },
    searchTools: (query) => searchTools(state, query),
    async listServiceTools(serviceId) {
      const service = state.services.get(serviceId);
      return service ? service.tools.map((tool) => detailRow(service, tool)) : [];
    },
    async getTool(serviceId, toolId) {
      const found = toolOf(state, serviceId, toolId);
      return found && detailRow(found.service, found.tool);
    },
    async getToolGate(serviceId, toolId) {
      const found = toolOf(state, serviceId, toolId);
      if (!found) return undefined;
      const { row } = found.service;
      return {
        enabled: found.tool.enabled,
        serviceEnabled: row.enabled,
        adapter: row.adapter,
        serviceHash: row.hash,
      };
    },
    async setToolEnabled(serviceId, toolId, enabled, at) {
      const found = toolOf(state, serviceId, toolId);
      if (!found) return false;
      found.tool.enabled = enabled;
      found.service.row = { ...found.service.row, updatedAt: at };
      return true;
    },
  } satisfies Pick<
    CatalogStorage,
    'listTools' | 'searchTools' | 'listServiceTools' | 'getTool' | 'getToolGate' | 'setToolEnabled'
  >;
}

/**
 * A {@link CatalogStorage} in memory: nothing survives the process. For embedding the core
 * without a database and for the core's own tests; servers use `@cyrnel/store`. Its tool search
 * takes the steps of the store's SQLite search (exact id, title, tiers by bm25, stemmed words)
 * over an inverted index of the tools' words; it ranks every match, where the store caps ranking
 * at 1,000 matches. Several hosts in one process may share one (with `createLocalSignals`): it
 * counts its writes for them.
 *
 * @example
 * ```ts
 * const host = await createHost({
 *   storage: { catalog: createMemoryCatalogStorage(), processes: createMemoryProcessStorage() },
 *   builtins: [openapi, typescriptIvm],
 *   secretsKey: randomBytes(32),
 * });
 * ```
 */
export function createMemoryCatalogStorage(): CatalogStorage {
  const state: MemoryCatalog = {
    modules: new Map(),
    configs: new Map(),
    secrets: new Map(),
    services: new Map(),
    policies: new Map(),
    connections: new Map(),
    index: createMemoryToolIndex(),
  };
  let revision = 0;
  return {
    ...moduleMethods(state),
    ...settingsMethods(state),
    ...serviceMethods(state),
    ...toolMethods(state),
    ...memoryObservedOutputMethods(state.services),
    ...memoryConnectionMethods(state.connections, (id) => state.services.has(id)),
    catalogRevision: async () => revision,
    bumpCatalogRevision: async () => ++revision,
  };
}
