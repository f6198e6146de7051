import {
  type JSONSchema,
  TOOL_POLICIES,
  type ToolDocsInput,
  type ToolPolicy,
  withSharedSchemas,
} from '@cyrnel/sdk';
import type { ToolDetail, ToolRecord } from '@cyrnel/sdk/api';
import type { CatalogStorage, ToolDetailRow, ToolRow } from '../catalog/catalog-storage';
import { decodeCursor, pageLimit, toPage } from '../catalog/page';
import type { EnvironmentProvider } from '../environments/environment-provider';
import { typesSelection } from '../environments/types-selection';
import { cyrnelError } from '../errors';
import type { ToolsApi } from '../host/host-api';
import type { PolicyBook } from '../policies/policy-book';
import { errorMessage } from '../scoped-logger';
import {
  optionalBoolean,
  optionalString,
  queryObject,
  requireBoolean,
  requireIdentifier,
} from '../validation/input';
import type { Callable } from './callable';

function optionalPolicy(value: unknown): ToolPolicy | undefined {
  const text = optionalString(value, 'effectivePolicy');
  if (text === undefined) return undefined;
  if (!(TOOL_POLICIES as readonly string[]).includes(text)) {
    throw cyrnelError('invalid_request', `effectivePolicy must be one of ${TOOL_POLICIES.join(', ')}`, {
      details: [{ path: 'effectivePolicy', message: `unknown policy ${text.slice(0, 100)}` }],
    });
  }
  return text as ToolPolicy;
}

import type { SharedSchemasCache } from './shared-schemas-cache';

/** Options of {@link createToolsApi}. */
export interface ToolsApiOptions {
  readonly catalog: CatalogStorage;
  readonly environments: EnvironmentProvider;
  /** The services' shared schemas, parsed once per definition. */
  readonly sharedSchemas: SharedSchemasCache;
  /** Which tools are effectively enabled (search keeps only those). */
  readonly callable: Callable;
  /** Each tool's annotations, labels and policies. */
  readonly policies: PolicyBook;
  readonly now: () => Date;
}

/** Tools read per step while a list filters by effective policy. */
const FILTER_BATCH = 500;

/** Create the tools API: list, read, enable and document the catalog's tools. */
export function createToolsApi(options: ToolsApiOptions): ToolsApi {
  const { catalog, now, callable } = options;

  const toRecord = async (row: ToolRow): Promise<ToolRecord> => {
    const rules = await options.policies.rulesOf(row.serviceId, row.id, row.annotations);
    return {
      serviceId: row.serviceId,
      id: row.id,
      name: row.name,
      description: row.description,
      enabled: row.enabled,
      effectivelyEnabled: callable.tool(row.serviceId, row),
      annotations: { ...rules.annotations },
      labels: [...rules.labels],
      policy: rules.own,
      effectivePolicy: rules.effective.policy,
    };
  };
  const toRecords = (rows: readonly ToolRow[]) => Promise.all(rows.map(toRecord));
  const shared = (row: ToolDetailRow) => options.sharedSchemas.get(row.serviceId, row.serviceHash);
  // A tool's schemas over the API are self-contained: the shared schemas they reach become `$defs`.
  const toDetail = async (row: ToolDetailRow): Promise<ToolDetail> => {
    const schemas = await shared(row);
    return {
      ...(await toRecord(row)),
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
    policy: ToolPolicy | undefined,
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
    const records = (await toRecords(rows)).filter((record) => !policy || record.effectivePolicy === policy);
    return { items: records.slice(0, limit), nextCursor: null, hasMore: records.length > limit };
  };

  // A filter by effective policy reads the tools in steps until a page (and one more) matched.
  const filtered = async (
    query: { serviceId: string | undefined; enabled: boolean | undefined },
    from: { serviceId: string; toolId: string } | undefined,
    limit: number,
    policy: ToolPolicy,
  ) => {
    const matched: { row: ToolRow; record: ToolRecord }[] = [];
    let after = from;
    while (matched.length <= limit) {
      const batch = await catalog.listTools({ ...query, after, limit: FILTER_BATCH });
      const records = await toRecords(batch);
      for (const [index, record] of records.entries()) {
        const row = batch[index] as ToolRow;
        if (record.effectivePolicy === policy) matched.push({ row, record });
        if (matched.length > limit) break;
      }
      const last = batch[batch.length - 1];
      if (batch.length < FILTER_BATCH || !last) break;
      after = { serviceId: last.serviceId, toolId: last.id };
    }
    return toPage(
      matched,
      limit,
      ({ row }) => [row.serviceId, row.id],
      ({ record }) => record,
    );
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
      const policy = optionalPolicy(query.effectivePolicy);
      if (text?.trim()) return search(text, serviceId, enabled, query.cursor, limit, policy);
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 2);
      const after = cursor ? { serviceId: cursor[0] as string, toolId: cursor[1] as string } : undefined;
      if (policy) return filtered({ serviceId, enabled }, after, limit, policy);
      const rows = await catalog.listTools({ serviceId, enabled, after, limit: limit + 1 });
      const records = await toRecords(rows.slice(0, limit));
      const page = toPage(
        rows,
        limit,
        (row) => [row.serviceId, row.id],
        () => undefined,
      );
      return { ...page, items: records };
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
      const parsed = typesSelection(rawSelection);
      // Only types asked for: no tool; only a budget: every tool.
      if (parsed && !parsed.namesTools && parsed.types.length > 0) return [];
      const selection = parsed?.namesTools ? parsed : undefined;
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
    async typeSources(names) {
      const services = new Map(
        (await catalog.listServices({ enabled: true }))
          .filter((service) => callable.service(service))
          .map((service) => [service.id, service]),
      );
      const unknown = [...new Set(names.map((name) => name.slice(0, name.indexOf('.'))))].filter(
        (id) => !services.has(id),
      );
      if (unknown.length > 0)
        throw cyrnelError(
          'invalid_request',
          `unknown services: ${unknown.join(', ')} (enabled services only)`,
          {
            details: unknown.map((id) => ({ path: 'types', message: `unknown service ${id}` })),
          },
        );
      const sources = new Map<string, ToolDocsInput>();
      const anyTool = new Map<string, ToolDocsInput | undefined>();
      for (const name of names) {
        const [serviceId, toolId] = name.split('.') as [string, string];
        const service = services.get(serviceId);
        if (!service || sources.has(`${serviceId}.${toolId}`)) continue;
        const schemas = await options.sharedSchemas.get(service.id, service.hash);
        // The tool a member path names; else any tool of the service, for its shared schemas.
        const row = await catalog.getTool(serviceId, toolId);
        if (row?.enabled && callable.tool(serviceId, row)) {
          sources.set(`${serviceId}.${toolId}`, toDocsInput(row, schemas));
          continue;
        }
        if (!anyTool.has(serviceId)) {
          const first = (await catalog.listServiceTools(serviceId)).find((tool) => tool.enabled);
          anyTool.set(serviceId, first && toDocsInput(first, schemas));
        }
      }
      for (const tool of anyTool.values()) if (tool) sources.set(`${tool.serviceId}.${tool.toolId}`, tool);
      return [...sources.values()];
    },
  };
}
