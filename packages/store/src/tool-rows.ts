import { type CatalogStorage, storedAnnotations, type ToolDetailRow, type ToolRow } from '@cyrnel/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database';
import { flag, parseObject } from './sql-helpers';

type ToolMethods = Pick<
  CatalogStorage,
  'listTools' | 'listServiceTools' | 'getTool' | 'getToolGate' | 'setToolEnabled'
>;

/** Tools joined with their service (its flag, adapter and hash live there). */
function toolsWithService(db: Kysely<Database>) {
  return db.selectFrom('tools').innerJoin('services', 'services.id', 'tools.service_id');
}

function selectTools(db: Kysely<Database>) {
  return toolsWithService(db).select([
    'tools.service_id as service_id',
    'tools.id as id',
    'tools.name as name',
    'tools.description as description',
    'tools.enabled as enabled',
    'services.enabled as service_enabled',
    'services.adapter as adapter',
    'tools.annotations as annotations',
  ]);
}

/** The columns every tool query selects (`selectTools`, and tool search's raw SQL). */
export interface ToolBase {
  service_id: string;
  id: string;
  name: string;
  description: string;
  enabled: number;
  service_enabled: number;
  adapter: string;
  /** JSON of the tool's annotations (migration 0016). */
  annotations: string;
}

/** A selected tool as the port answers it. */
export function toToolRow(row: ToolBase): ToolRow {
  return {
    serviceId: row.service_id,
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled === 1,
    serviceEnabled: row.service_enabled === 1,
    adapter: row.adapter,
    annotations: storedAnnotations(parseObject(row.annotations)),
  };
}

function selectDetails(db: Kysely<Database>) {
  return selectTools(db).select([
    'tools.input_schema as input_schema',
    'tools.output_schema as output_schema',
    'tools.adapter_domain as adapter_domain',
    'services.hash as service_hash',
    // A service that does not observe outputs shows none, whatever a late writer left.
    sql<string | null>`case when services.observe_outputs = 1 then tools.observed_output end`.as(
      'observed_output',
    ),
  ]);
}

function toDetailRow(
  row: ToolBase & {
    input_schema: string;
    output_schema: string;
    adapter_domain: string;
    service_hash: string;
    observed_output: string | null;
  },
): ToolDetailRow {
  return {
    ...toToolRow(row),
    serviceHash: row.service_hash,
    inputSchema: parseObject(row.input_schema),
    outputSchema: parseObject(row.output_schema),
    adapterDomain: parseObject(row.adapter_domain),
    observedOutput: row.observed_output === null ? null : parseObject(row.observed_output),
  };
}

/** The tool half of the catalog port. */
export function createToolRows(db: Kysely<Database>): ToolMethods {
  return {
    async listTools(query) {
      let select = selectTools(db).orderBy('tools.service_id').orderBy('tools.id');
      if (query.serviceId !== undefined) select = select.where('tools.service_id', '=', query.serviceId);
      if (query.enabled !== undefined) select = select.where('tools.enabled', '=', flag(query.enabled));
      if (query.after) {
        const { serviceId, toolId } = query.after;
        select = select.where((eb) =>
          eb.or([
            eb('tools.service_id', '>', serviceId),
            eb.and([eb('tools.service_id', '=', serviceId), eb('tools.id', '>', toolId)]),
          ]),
        );
      }
      if (query.limit !== undefined) select = select.limit(query.limit);
      return (await select.execute()).map(toToolRow);
    },
    async listServiceTools(serviceId) {
      const rows = await selectDetails(db)
        .where('tools.service_id', '=', serviceId)
        .orderBy('tools.id')
        .execute();
      return rows.map(toDetailRow);
    },
    async getTool(serviceId, toolId) {
      const row = await selectDetails(db)
        .where('tools.service_id', '=', serviceId)
        .where('tools.id', '=', toolId)
        .executeTakeFirst();
      return row ? toDetailRow(row) : undefined;
    },
    async getToolGate(serviceId, toolId) {
      const row = await toolsWithService(db)
        .select([
          'tools.enabled as enabled',
          'services.enabled as service_enabled',
          'services.adapter as adapter',
          'services.hash as service_hash',
        ])
        .where('tools.service_id', '=', serviceId)
        .where('tools.id', '=', toolId)
        .executeTakeFirst();
      return row
        ? {
            enabled: row.enabled === 1,
            serviceEnabled: row.service_enabled === 1,
            adapter: row.adapter,
            serviceHash: row.service_hash,
          }
        : undefined;
    },
    async setToolEnabled(serviceId, toolId, enabled, at) {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('tools')
          .set({ enabled: flag(enabled) })
          .where('service_id', '=', serviceId)
          .where('id', '=', toolId)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await trx.updateTable('services').set({ updated_at: at }).where('id', '=', serviceId).execute();
        return true;
      });
    },
  };
}
