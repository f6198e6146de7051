import type { ToolDocsInput } from '@cyrnel/sdk';
import type { ToolDetail, ToolRecord } from '@cyrnel/sdk/api';
import type { CatalogStorage, ToolDetailRow, ToolRow } from './catalog-storage';
import type { EnvironmentProvider } from './environment-provider';
import { NotFoundError, UnavailableError, UpstreamError } from './errors';
import type { ToolsApi } from './host';
import { optionalBoolean, optionalString, queryObject, requireBoolean, requireIdentifier } from './input';
import { decodeCursor, pageLimit, toPage } from './page';
import { errorMessage } from './scoped-logger';

/** Options of {@link createToolsApi}. */
export interface ToolsApiOptions {
  readonly catalog: CatalogStorage;
  readonly isAdapterActive: (adapterId: string) => boolean;
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

  return {
    async list(rawQuery) {
      const query = queryObject(rawQuery);
      const limit = pageLimit(query.limit);
      const serviceId = optionalString(query.serviceId, 'serviceId');
      if (serviceId !== undefined && !(await catalog.getService(serviceId))) {
        throw new NotFoundError(`service ${serviceId} not found`);
      }
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 2);
      const rows = await catalog.listTools({
        serviceId,
        query: optionalString(query.query, 'query') || undefined,
        enabled: optionalBoolean(query.enabled, 'enabled'),
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
