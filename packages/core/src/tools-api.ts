import type { ToolDocsInput } from '@cyrnel/sdk';
import type { ToolDetail, ToolRecord } from '@cyrnel/sdk/api';
import type { CatalogStorage, ToolDetailRow, ToolRow } from './catalog-storage';
import type { EnvironmentProvider } from './environment-provider';
import { NotFoundError, UnavailableError, UpstreamError, ValidationError } from './errors';
import type { ToolsApi } from './host';
import { optionalBoolean, optionalString, queryObject, requireBoolean, requireIdentifier } from './input';
import { decodeCursor, pageLimit, toPage } from './page';
import { errorMessage } from './scoped-logger';

/** Options of {@link createToolsApi}. */
export interface ToolsApiOptions {
  readonly catalog: CatalogStorage;
  readonly isAdapterActive: (adapterId: string) => boolean;
  /** The ids of the active adapters (tool search keeps only their tools). */
  readonly activeAdapterIds: () => readonly string[];
  readonly environments: EnvironmentProvider;
  readonly now: () => Date;
}

/** Create the tools API (seed 004). */
export function createToolsApi(options: ToolsApiOptions): ToolsApi {
  const { catalog, isAdapterActive, now } = options;

  const toRecord = (row: ToolRow): ToolRecord => ({
    serviceId: row.serviceId,
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    effectivelyEnabled: row.enabled && row.serviceEnabled && isAdapterActive(row.adapter),
  });
  const toDetail = (row: ToolDetailRow): ToolDetail => ({
    ...toRecord(row),
    inputSchema: row.inputSchema,
    outputSchema: row.outputSchema,
  });
  const toDocsInput = (row: ToolDetailRow): ToolDocsInput => ({
    serviceId: row.serviceId,
    toolId: row.id,
    description: row.description,
    inputSchema: row.inputSchema,
    outputSchema: row.outputSchema,
  });

  const find = async (serviceId: unknown, toolId: unknown): Promise<ToolDetailRow> => {
    const sid = requireIdentifier(serviceId, 'serviceId');
    const tid = requireIdentifier(toolId, 'toolId');
    const row = await catalog.getTool(sid, tid);
    if (!row) {
      if (!(await catalog.getService(sid))) throw new NotFoundError(`service ${sid} not found`);
      throw new NotFoundError(`tool ${tid} not found in service ${sid}`);
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
      throw new ValidationError('cursor cannot be combined with query: ranked results are not paged', [
        { path: 'cursor', message: 'not allowed with query' },
      ]);
    }
    if (enabled === false) {
      throw new ValidationError(
        'enabled=false cannot be combined with query: the search finds enabled tools only',
        [{ path: 'enabled', message: 'must be true or absent with query' }],
      );
    }
    const rows = await catalog.searchTools({
      text,
      ...(serviceId === undefined ? {} : { serviceId }),
      adapters: options.activeAdapterIds(),
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
        throw new NotFoundError(`service ${serviceId} not found`);
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
      return toDetail(await find(serviceId, toolId));
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
      if (!environment) throw new UnavailableError('no environment is active');
      try {
        return await environment.generateToolDocs(toDocsInput(row));
      } catch (error) {
        throw new UpstreamError(`the environment failed to render tool docs: ${errorMessage(error)}`);
      }
    },
    async docsInputs() {
      const inputs: ToolDocsInput[] = [];
      const services = await catalog.listServices({ enabled: true });
      for (const service of services) {
        if (!isAdapterActive(service.adapter)) continue;
        for (const tool of await catalog.listServiceTools(service.id)) {
          if (tool.enabled) inputs.push(toDocsInput(tool));
        }
      }
      return inputs;
    },
  };
}
