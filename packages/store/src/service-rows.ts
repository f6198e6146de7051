import {
  type CatalogStorage,
  cyrnelError,
  type NewTool,
  type ServiceDefinitionFields,
  type ServiceRow,
  storedAnnotations,
  wordCount,
} from '@cyrnel/core';
import type { JSONSchema } from '@cyrnel/sdk';
import type { RegistryOrigin } from '@cyrnel/sdk/api';
import { type Kysely, sql, type Transaction } from 'kysely';
import { writeDefaultSecrets } from './connection-rows';
import type { Database } from './database';
import { nextSearchId } from './search-ids';
import { containsText, flag, parseObject } from './sql-helpers';
import type { StoreDialect, ToolSearchIndex } from './store-dialect';

type ServiceMethods = Pick<
  CatalogStorage,
  | 'listServices'
  | 'getService'
  | 'insertService'
  | 'replaceServiceDefinition'
  | 'setServiceEnabled'
  | 'deleteService'
  | 'getServiceSchemas'
  | 'getServiceDefinitionText'
>;

function selectServices(db: Kysely<Database>) {
  return db
    .selectFrom('services')
    .select([
      'id',
      'name',
      'description',
      'adapter',
      'enabled',
      'hash',
      'source',
      'config_schema',
      'secrets_schema',
      'adapter_domain',
      'adapter_version',
      'registry',
      'observe_outputs',
      'created_at',
      'updated_at',
    ])
    .select((eb) => [
      eb
        .selectFrom('tools')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('tools.service_id', '=', 'services.id')
        .as('tool_count'),
      eb
        .selectFrom('tools')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('tools.service_id', '=', 'services.id')
        .where('tools.enabled', '=', 1)
        .as('enabled_tool_count'),
    ]);
}

type SelectedService = Awaited<ReturnType<ReturnType<typeof selectServices>['executeTakeFirstOrThrow']>>;

function toServiceRow(row: SelectedService): ServiceRow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    adapter: row.adapter,
    enabled: row.enabled === 1,
    hash: row.hash,
    source: row.source,
    configSchema: parseObject(row.config_schema),
    secretsSchema: parseObject(row.secrets_schema),
    adapterDomain: parseObject(row.adapter_domain),
    adapterVersion: row.adapter_version,
    registry: row.registry ? (parseObject(row.registry) as unknown as RegistryOrigin) : null,
    toolCount: Number(row.tool_count ?? 0),
    enabledToolCount: Number(row.enabled_tool_count ?? 0),
    observeOutputs: Number(row.observe_outputs) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The `schemas` column: NULL when there are none, so a service without them costs nothing. */
function sharedSchemasText(schemas: Readonly<Record<string, unknown>> | undefined): string | null {
  return schemas && Object.keys(schemas).length > 0 ? JSON.stringify(schemas) : null;
}

/**
 * A definition text as the dialect stores it: as it is, or (SQLite) compressed on the thread pool
 * while the transaction writes the tool rows, and written last (`last`) in that transaction, over
 * the empty `first`. A failed compression fails the transaction like any statement.
 */
function storedDefinition(
  dialect: StoreDialect,
  fields: ServiceDefinitionFields,
): { readonly first: string; readonly last?: Promise<string | Uint8Array> } {
  if (!dialect.definitions) return { first: fields.definition };
  const last = dialect.definitions.encode(fields.definition, fields.definitionUtf8);
  // Awaited in the transaction; one that fails before then must not leave it unhandled.
  last.catch(() => {});
  return { first: '', last };
}

/** Write the compressed definition of `storedDefinition`, last in the transaction. */
async function writeDefinitionLast(
  trx: Transaction<Database>,
  id: string,
  stored: ReturnType<typeof storedDefinition>,
): Promise<void> {
  if (!stored.last) return;
  await trx
    .updateTable('services')
    .set({ definition: await stored.last })
    .where('id', '=', id)
    .execute();
}

/** Insert a service's tools and index them for search, in the caller's transaction. */
async function insertTools(
  search: ToolSearchIndex,
  trx: Transaction<Database>,
  service: { readonly id: string; readonly name: string },
  tools: readonly NewTool[],
  /** The learned result shapes of tools kept by a replace, by tool id. */
  observed?: ReadonlyMap<string, string>,
) {
  // One contiguous range of search ids per service: a search within a service is a rowid range.
  const firstSearchId = await nextSearchId(trx);
  const indexed = { serviceId: service.id, serviceName: service.name, firstSearchId, tools };
  const columns = search.columns?.(indexed) ?? [];
  // Chunked: SQLite caps bound parameters per statement.
  for (let i = 0; i < tools.length; i += 100) {
    await trx
      .insertInto('tools')
      .values(
        tools.slice(i, i + 100).map((tool, j) => ({
          service_id: service.id,
          id: tool.id,
          name: tool.name,
          description: tool.description,
          enabled: flag(tool.enabled),
          input_schema: JSON.stringify(tool.inputSchema),
          output_schema: JSON.stringify(tool.outputSchema),
          adapter_domain: JSON.stringify(tool.adapterDomain),
          keywords: JSON.stringify(tool.keywords ?? []),
          annotations: JSON.stringify(storedAnnotations(tool.annotations)),
          search_id: firstSearchId + i + j,
          id_words: wordCount(tool.id),
          name_words: wordCount(tool.name),
          // Named only when there is one: a row written by an older schema's code has no such column.
          ...(observed?.has(tool.id) ? { observed_output: observed.get(tool.id) ?? null } : {}),
          ...columns[i + j],
        })),
      )
      .execute();
  }
  await search.add(trx, indexed);
}

/** The service half of the catalog port; the dialect indexes tools and recognises duplicate ids. */
export function createServiceRows(db: Kysely<Database>, dialect: StoreDialect): ServiceMethods {
  return {
    async listServices(query) {
      let select = selectServices(db).orderBy('id');
      if (query.enabled !== undefined) select = select.where('enabled', '=', flag(query.enabled));
      if (query.adapter !== undefined) select = select.where('adapter', '=', query.adapter);
      if (query.afterId !== undefined) select = select.where('id', '>', query.afterId);
      if (query.query) {
        const text = query.query;
        select = select.where((eb) =>
          eb.or([
            containsText(sql.ref('id'), text),
            containsText(sql.ref('name'), text),
            containsText(sql.ref('description'), text),
          ]),
        );
      }
      if (query.limit !== undefined) select = select.limit(query.limit);
      return (await select.execute()).map(toServiceRow);
    },
    async getService(id) {
      const row = await selectServices(db).where('id', '=', id).executeTakeFirst();
      return row ? toServiceRow(row) : undefined;
    },
    async insertService(service) {
      const definition = storedDefinition(dialect, service);
      try {
        await db.transaction().execute(async (trx) => {
          await trx
            .insertInto('services')
            .values({
              id: service.id,
              name: service.name,
              description: service.description,
              adapter: service.adapter,
              enabled: flag(service.enabled),
              hash: service.hash,
              source: service.source,
              definition: definition.first,
              config_schema: JSON.stringify(service.configSchema),
              secrets_schema: JSON.stringify(service.secretsSchema),
              adapter_domain: JSON.stringify(service.adapterDomain),
              schemas: sharedSchemasText(service.schemas),
              adapter_version: service.adapterVersion ?? null,
              registry: service.registry ? JSON.stringify(service.registry) : null,
              created_at: service.createdAt,
              updated_at: service.createdAt,
            })
            .execute();
          await insertTools(dialect.toolSearch, trx, service, service.tools);
          await trx
            .insertInto('service_config')
            .values({
              owner_id: service.id,
              config: JSON.stringify(service.config),
              updated_at: service.createdAt,
            })
            .execute();
          // A service's secrets are its shared `default` connection.
          if (service.secrets) await writeDefaultSecrets(trx, service.id, service.secrets, service.createdAt);
          await writeDefinitionLast(trx, service.id, definition);
        });
      } catch (error) {
        if (dialect.isUniqueViolation(error)) {
          throw cyrnelError('service_exists', `service ${service.id} already exists`, { cause: error });
        }
        throw error;
      }
    },
    async replaceServiceDefinition(id, fields, enabled, at) {
      const definition = storedDefinition(dialect, fields);
      await db.transaction().execute(async (trx) => {
        // The index first, as a delete does: hosts replacing and deleting one service at once
        // take the same locks in the same order (PostgreSQL's word counts lock a table; the
        // other order deadlocked).
        await dialect.toolSearch.remove(trx, id);
        const updated = await trx
          .updateTable('services')
          .set({
            name: fields.name,
            description: fields.description,
            hash: fields.hash,
            source: fields.source,
            definition: definition.first,
            config_schema: JSON.stringify(fields.configSchema),
            secrets_schema: JSON.stringify(fields.secretsSchema),
            adapter_domain: JSON.stringify(fields.adapterDomain),
            schemas: sharedSchemasText(fields.schemas),
            adapter_version: fields.adapterVersion ?? null,
            registry: fields.registry ? JSON.stringify(fields.registry) : null,
            enabled: flag(enabled),
            updated_at: at,
          })
          .where('id', '=', id)
          .executeTakeFirst();
        // Deleted meanwhile (by another host: one host's own writes of a service take turns).
        if (Number(updated.numUpdatedRows) === 0)
          throw cyrnelError('service_not_found', `service ${id} not found`);
        // What was learned of tools that remain stays (MCP servers change their lists at run time).
        const learned = await trx
          .selectFrom('tools')
          .select(['id', 'observed_output'])
          .where('service_id', '=', id)
          .where('observed_output', 'is not', null)
          .execute();
        const observed = new Map(learned.map((row) => [row.id, row.observed_output as string]));
        await trx.deleteFrom('tools').where('service_id', '=', id).execute();
        await insertTools(dialect.toolSearch, trx, { id, name: fields.name }, fields.tools, observed);
        await writeDefinitionLast(trx, id, definition);
      });
    },
    async setServiceEnabled(id, enabled, at) {
      const result = await db
        .updateTable('services')
        .set({ enabled: flag(enabled), updated_at: at })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async deleteService(id) {
      return db.transaction().execute(async (trx) => {
        // Children first and explicitly: correct even where foreign keys are not enforced.
        await dialect.toolSearch.remove(trx, id);
        await trx.deleteFrom('tools').where('service_id', '=', id).execute();
        await trx.deleteFrom('service_config').where('owner_id', '=', id).execute();
        await trx.deleteFrom('service_connections').where('service_id', '=', id).execute();
        await trx.deleteFrom('service_policies').where('service_id', '=', id).execute();
        const result = await trx.deleteFrom('services').where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      });
    },
    async getServiceDefinitionText(id) {
      const row = await db
        .selectFrom('services')
        .select('definition')
        .where('id', '=', id)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return dialect.definitions ? dialect.definitions.decode(row.definition) : (row.definition as string);
    },
    async getServiceSchemas(id) {
      const row = await db.selectFrom('services').select('schemas').where('id', '=', id).executeTakeFirst();
      return row?.schemas ? (parseObject(row.schemas) as Record<string, JSONSchema>) : undefined;
    },
  };
}
