import { type JSONSchema, type ToolDocsInput, withSharedSchemas } from '@cyrnel/sdk';
import type { ToolDetail, ToolRecord } from '@cyrnel/sdk/api';
import type { CatalogStorage, ToolDetailRow, ToolRow } from '../catalog/catalog-storage';
import { decodeCursor, pageLimit, toPage } from '../catalog/page';
import type { EnvironmentProvider } from '../environments/environment-provider';
import { typesSelection } from '../environments/types-selection';
import { cyrnelError } from '../errors';
import type { ToolsApi } from '../host/host-api';
import { errorMessage } from '../scoped-logger';
import {
  optionalBoolean,
  optionalString,
  queryObject,
  requireBoolean,
  requireIdentifier,
} from '../validation/input';
import type { Callable } from './callable';
import type { SharedSchemasCache } from './shared-schemas-cache';

/** Options of {@link createToolsApi}. */
export interface ToolsApiOptions {
  readonly catalog: CatalogStorage;
  readonly environments: EnvironmentProvider;
  /** The services' shared schemas, parsed once per definition. */
  readonly sharedSchemas: SharedSchemasCache;
  /** Which tools are effectively enabled (search keeps only those). */
  readonly callable: Callable;
  readonly now: () => Date;
}

/** Create the tools API: list, read, enable and document the catalog's tools. */
export function createToolsApi(options: ToolsApiOptions): ToolsApi {
  const { catalog, now, callable } = options;

  const toRecord = (row: ToolRow): ToolRecord => ({
    serviceId: row.serviceId,
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    effectivelyEnabled: callable.tool(row.serviceId, row),
  });
  const shared = (row: ToolDetailRow) => options.sharedSchemas.get(row.serviceId, row.serviceHash);
  // A tool's schemas over the API are self-contained: the shared schemas they reach become `$defs`.
  const toDetail = async (row: ToolDetailRow): Promise<ToolDetail> => {
    const schemas = await shared(row);
    return {
      ...toRecord(row),
      inputSchema: withSharedSchemas(row.inputSchema, schemas),
      outputSchema: withSharedSchemas(row.outputSchema, schemas),
    };
  };
  const toDocsInput = (
    row: ToolDetailRow,
    schemas: Readonly<Record<string, JSONSchema>> | undefined,
  ): ToolDocsInput => ({
    serviceId: row.serviceId,
    toolId: row.id,
    description: row.description,
    inputSchema: row.inputSchema,
    outputSchema: row.outputSchema,
    ...(schemas ? { schemas } : {}),
  });

  const find = async (serviceId: unknown, toolId: unknown): Promise<ToolDetailRow> => {
    const sid = requireIdentifier(serviceId, 'serviceId');
    const tid = requireIdentifier(toolId, 'toolId');
    const row = await catalog.getTool(sid, tid);
    if (!row) {
      if (!(await catalog.getService(sid)))
        throw cyrnelError('service_not_found', `service ${sid} not found`);
      throw cyrnelError('tool_not_found', `tool ${tid} not found in service ${sid}`);
    }
    return row;
  };

  // One ranked search with discovery (`searchTools`): effectively enabled tools, best first, at
  // most `limit`; a ranking has no stable position to resume from, so it is not cursor-paged.
  const search = async (
    text: string,
    serviceId: string | undefined,
    enabled: boolean | undefined,
    cursor: unknown,
    limit: number,
  ) => {
    if (cursor !== undefined) {
      throw cyrnelError(
        'invalid_request',
        'cursor cannot be combined with query: ranked results are not paged',
        { details: [{ path: 'cursor', message: 'not allowed with query' }] },
      );
    }
    if (enabled === false) {
      throw cyrnelError(
        'invalid_request',
        'enabled=false cannot be combined with query: the search finds enabled tools only',
        { details: [{ path: 'enabled', message: 'must be true or absent with query' }] },
      );
    }
    const rows = await catalog.searchTools({
      text,
      ...(serviceId === undefined ? {} : { serviceId }),
      ...callable.searchScope(),
      limit: limit + 1,
    });
    return { items: rows.slice(0, limit).map(toRecord), nextCursor: null, hasMore: rows.length > limit };
  };

  return {
    async list(rawQuery) {
      const query = queryObject(rawQuery);
      const limit = pageLimit(query.limit);
      const serviceId = optionalString(query.serviceId, 'serviceId');
      if (serviceId !== undefined && !(await catalog.getService(serviceId))) {
        throw cyrnelError('service_not_found', `service ${serviceId} not found`);
      }
      const text = optionalString(query.query, 'query');
      const enabled = optionalBoolean(query.enabled, 'enabled');
      if (text?.trim()) return search(text, serviceId, enabled, query.cursor, limit);
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 2);
      const rows = await catalog.listTools({
        serviceId,
        enabled,
        after: after ? { serviceId: after[0] as string, toolId: after[1] as string } : undefined,
        limit: limit + 1,
      });
      return toPage(rows, limit, (row) => [row.serviceId, row.id], toRecord);
    },
    async get(serviceId, toolId) {
      return await toDetail(await find(serviceId, toolId));
    },
    async setEnabled(serviceId, toolId, enabled) {
      const flag = requireBoolean(enabled, 'enabled');
      const row = await find(serviceId, toolId);
      await catalog.setToolEnabled(row.serviceId, row.id, flag, now().toISOString());
      return toDetail(await find(serviceId, toolId));
    },
    async docs(serviceId, toolId) {
      const row = await find(serviceId, toolId);
      const environment = options.environments.active();
      if (!environment) throw cyrnelError('module_unavailable', 'no environment is active');
      try {
        return await environment.generateToolDocs(toDocsInput(row, await shared(row)));
      } catch (error) {
        throw cyrnelError(
          'upstream_failed',
          `the environment failed to render tool docs: ${errorMessage(error)}`,
        );
      }
    },
    async docsInputs(rawSelection) {
      const selection = typesSelection(rawSelection);
      const inputs: ToolDocsInput[] = [];
      const services = (await catalog.listServices({ enabled: true })).filter((service) =>
        callable.service(service),
      );
      const unknownServices = selection?.unknownServices(services.map((service) => service.id)) ?? [];
      const found = new Set<string>();
      for (const service of services) {
        if (selection && !selection.reaches(service.id)) continue;
        const rows = (await catalog.listServiceTools(service.id)).filter((tool) => tool.enabled);
        const picked = selection ? rows.filter((tool) => selection.has(service.id, tool.id)) : rows;
        if (picked.length === 0) continue;
        const schemas = await options.sharedSchemas.get(service.id, service.hash);
        for (const tool of picked) {
          found.add(`${tool.serviceId}.${tool.id}`);
          inputs.push(toDocsInput(tool, schemas));
        }
      }
      const unknownTools = selection?.unknownTools(found) ?? [];
      if (unknownServices.length > 0 || unknownTools.length > 0) {
        const parts = [
          ...(unknownServices.length > 0 ? [`unknown services: ${unknownServices.join(', ')}`] : []),
          ...(unknownTools.length > 0 ? [`unknown tools: ${unknownTools.join(', ')}`] : []),
        ];
        throw cyrnelError('invalid_request', `${parts.join('; ')} (enabled services and tools only)`, {
          details: [
            ...unknownServices.map((id) => ({ path: 'services', message: `unknown service ${id}` })),
            ...unknownTools.map((id) => ({ path: 'tools', message: `unknown tool ${id}` })),
          ],
        });
      }
      return inputs;
    },
  };
}
