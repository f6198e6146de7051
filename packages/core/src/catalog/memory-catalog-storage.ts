import type { JSONSchema } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';
import type { SealedSecrets } from '../secrets/secrets-cipher';
import type {
  CatalogStorage,
  ModuleRow,
  NewTool,
  ServiceDefinitionFields,
  ServiceRow,
  SettingsOwner,
  ToolDetailRow,
  ToolRow,
  ToolSearchQuery,
} from './catalog-storage';
import { createMemoryToolIndex, type IndexedTool } from './memory-tool-index';
import { searchMemoryTools } from './memory-tool-search';

/** A service as kept: its row without the counts, its text, shared schemas and tools by id. */
interface MemoryService {
  row: Omit<ServiceRow, 'toolCount' | 'enabledToolCount'>;
  definition: string;
  schemas: Record<string, JSONSchema> | undefined;
  /** In id order, as every read answers them. */
  tools: MemoryTool[];
  byId: Map<string, MemoryTool>;
}

interface MemoryTool extends Omit<NewTool, 'keywords'> {
  enabled: boolean;
}

// Callers own what they are given and what they get: nothing kept is shared with them.
const copy = <T>(value: T): T => structuredClone(value);
const ownerKey = (owner: SettingsOwner) => `${owner.kind}:${owner.id}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function toolsOf(tools: readonly NewTool[]): { tools: MemoryTool[]; byId: Map<string, MemoryTool> } {
  const kept = tools
    .map(({ keywords: _keywords, ...tool }) => copy({ ...tool }))
    .sort((a, b) => compare(a.id, b.id));
  const byId = new Map(kept.map((tool) => [tool.id, tool]));
  // A store refuses this with its primary key; core never stores such a definition.
  if (byId.size !== kept.length) throw new Error('duplicate tool id in one service');
  return { tools: kept, byId };
}

function definitionRow(fields: ServiceDefinitionFields) {
  return {
    name: fields.name,
    description: fields.description,
    hash: fields.hash,
    source: fields.source,
    configSchema: copy(fields.configSchema),
    secretsSchema: copy(fields.secretsSchema),
    adapterDomain: copy(fields.adapterDomain),
    adapterVersion: fields.adapterVersion ?? null,
    registry: fields.registry ? copy(fields.registry) : null,
  };
}

function serviceRow(service: MemoryService): ServiceRow {
  return {
    ...copy(service.row),
    toolCount: service.tools.length,
    enabledToolCount: service.tools.filter((tool) => tool.enabled).length,
  };
}

function toolRow(service: MemoryService, tool: MemoryTool): ToolRow {
  return {
    serviceId: service.row.id,
    id: tool.id,
    name: tool.name,
    description: tool.description,
    enabled: tool.enabled,
    serviceEnabled: service.row.enabled,
    adapter: service.row.adapter,
  };
}

function detailRow(service: MemoryService, tool: MemoryTool): ToolDetailRow {
  return {
    ...toolRow(service, tool),
    serviceHash: service.row.hash,
    inputSchema: copy(tool.inputSchema),
    outputSchema: copy(tool.outputSchema),
    adapterDomain: copy(tool.adapterDomain),
  };
}

const contains = (text: string, query: string) => text.toLowerCase().includes(query.toLowerCase());

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
  const modules = new Map<string, ModuleRow>();
  const configs = new Map<string, Record<string, unknown>>();
  const secrets = new Map<string, SealedSecrets>();
  const services = new Map<string, MemoryService>();
  const index = createMemoryToolIndex();
  let revision = 0;

  const sortedServices = () => [...services.values()].sort((a, b) => compare(a.row.id, b.row.id));
  const dropSettings = (id: string) => {
    configs.delete(ownerKey({ kind: 'service', id }));
    secrets.delete(ownerKey({ kind: 'service', id }));
  };
  const toolOf = (serviceId: string, toolId: string) => {
    const service = services.get(serviceId);
    const tool = service?.byId.get(toolId);
    return service && tool ? { service, tool } : undefined;
  };
  const callable = (query: ToolSearchQuery) => {
    const adapters = new Set(query.adapters);
    const excluded = new Set(query.excludedServices ?? []);
    return (serviceId: string, toolId: string) => {
      if (excluded.has(serviceId) || (query.serviceId !== undefined && serviceId !== query.serviceId))
        return false;
      const found = toolOf(serviceId, toolId);
      if (!found) return false;
      return found.tool.enabled && found.service.row.enabled && adapters.has(found.service.row.adapter);
    };
  };

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

    getConfig: async (owner) => copy(configs.get(ownerKey(owner))),
    async setConfig(owner, config, _at) {
      configs.set(ownerKey(owner), copy(config));
    },
    getSecrets: async (owner) => copy(secrets.get(ownerKey(owner))),
    async setSecrets(owner, sealed, _at) {
      secrets.set(ownerKey(owner), copy(sealed));
    },

    async listServices(query) {
      const rows = [];
      for (const service of sortedServices()) {
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
      const kept: MemoryService = {
        row: {
          id: service.id,
          adapter: service.adapter,
          enabled: service.enabled,
          ...definitionRow(service),
          createdAt: service.createdAt,
          updatedAt: service.createdAt,
        },
        definition: service.definition,
        schemas:
          service.schemas && Object.keys(service.schemas).length > 0
            ? copy({ ...service.schemas })
            : undefined,
        ...toolsOf(service.tools),
      };
      services.set(service.id, kept);
      index.add(service.id, service.name, service.tools);
      configs.set(ownerKey({ kind: 'service', id: service.id }), copy(service.config));
      if (service.secrets) secrets.set(ownerKey({ kind: 'service', id: service.id }), copy(service.secrets));
    },
    async replaceServiceDefinition(id, fields, enabled, at) {
      const service = services.get(id);
      if (!service) throw cyrnelError('service_not_found', `service ${id} not found`);
      const tools = toolsOf(fields.tools);
      service.row = { ...service.row, ...definitionRow(fields), enabled, updatedAt: at };
      service.definition = fields.definition;
      service.schemas =
        fields.schemas && Object.keys(fields.schemas).length > 0 ? copy({ ...fields.schemas }) : undefined;
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
      dropSettings(id);
      return true;
    },
    getServiceDefinitionText: async (id) => services.get(id)?.definition,
    getServiceSchemas: async (id) => copy(services.get(id)?.schemas),

    async listTools(query) {
      const rows: ToolRow[] = [];
      const { after, limit } = query;
      for (const service of sortedServices()) {
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
    async searchTools(query) {
      const limit = Math.max(0, Math.floor(query.limit));
      if (limit === 0) return [];
      const may = callable(query);
      const rowOf = ({ serviceId, toolId }: Pick<IndexedTool, 'serviceId' | 'toolId'>) => {
        const found = toolOf(serviceId, toolId) as { service: MemoryService; tool: MemoryTool };
        return toolRow(found.service, found.tool);
      };
      if (query.text.trim() === '') {
        const rows = [];
        for (const service of sortedServices()) {
          for (const tool of service.tools) {
            if (rows.length >= limit) return rows;
            if (may(service.row.id, tool.id)) rows.push(toolRow(service, tool));
          }
        }
        return rows;
      }
      return searchMemoryTools(index, query, (tool) => may(tool.serviceId, tool.toolId)).map(rowOf);
    },
    async listServiceTools(serviceId) {
      const service = services.get(serviceId);
      return service ? service.tools.map((tool) => detailRow(service, tool)) : [];
    },
    async getTool(serviceId, toolId) {
      const found = toolOf(serviceId, toolId);
      return found && detailRow(found.service, found.tool);
    },
    async getToolGate(serviceId, toolId) {
      const found = toolOf(serviceId, toolId);
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
      const found = toolOf(serviceId, toolId);
      if (!found) return false;
      found.tool.enabled = enabled;
      found.service.row = { ...found.service.row, updatedAt: at };
      return true;
    },
    catalogRevision: async () => revision,
    bumpCatalogRevision: async () => ++revision,
  };
}
