import type { ProcessChange, ProcessStorage } from '@cyrnel/core';
import type { ExecutionExitState, ProcessState, ToolLabel } from '@cyrnel/sdk';
import type { ErrorReason, ProcessRecord, ProcessSummary } from '@cyrnel/sdk/api';
import { type CompiledQuery, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { Database } from './database';
import { createProcessCalls } from './process-calls';
import { createHostRows, LIVE_STATES } from './process-host-rows';
import { METRIC_COLUMNS, metricColumns, metricsOf, NO_METRICS } from './process-metrics-rows';
import { createProcessQuotaStore } from './process-quota-store';
import type { ProcessesTable } from './process-tables';
import { createServiceStatsQuery } from './service-stats-query';
import { parseObject } from './sql-helpers';
import type { StoreDialectName } from './store-dialect';

// Lists leave `env_config` and `connections` out: they are read only for one process at a time.
const SUMMARY_COLUMNS = [
  'id',
  'ref',
  'key_id',
  'principal_id',
  'state',
  'exit_state',
  'error',
  'error_reason',
  'timeout_ms',
  'created_at',
  'updated_at',
  'started_at',
  'completed_at',
  'owner_host',
  'labels',
  'approval_id',
  ...METRIC_COLUMNS,
] as const;

const RECORD_COLUMNS = [...SUMMARY_COLUMNS, 'env_config', 'connections'] as const;

type SummaryRow = Pick<Selectable<ProcessesTable>, (typeof SUMMARY_COLUMNS)[number]>;
type RecordRow = Pick<Selectable<ProcessesTable>, (typeof RECORD_COLUMNS)[number]>;

function toRecord(row: RecordRow): ProcessRecord {
  return {
    ...toSummary(row),
    envConfig: parseObject(row.env_config),
    connections: parseObject(row.connections) as Record<string, string>,
  };
}

function toSummary(row: SummaryRow): ProcessSummary {
  return {
    id: Number(row.id),
    ref: row.ref,
    keyId: row.key_id,
    principalId: row.principal_id,
    state: row.state as ProcessState,
    exitState: row.exit_state as ExecutionExitState | null,
    error: row.error,
    errorReason: row.error_reason as ErrorReason | null,
    timeoutMs: row.timeout_ms === null ? null : Number(row.timeout_ms),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    hostId: row.owner_host,
    labels: parseLabels(row.labels),
    approvalId: row.approval_id,
    metrics: metricsOf(row),
  };
}

/** The `labels` column: a JSON array of label words. */
function parseLabels(text: string): ToolLabel[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? (value as ToolLabel[]) : [];
}

function toColumns(change: ProcessChange): Updateable<ProcessesTable> {
  const columns: Updateable<ProcessesTable> = { updated_at: change.updatedAt };
  if (change.state !== undefined) columns.state = change.state;
  if (change.exitState !== undefined) columns.exit_state = change.exitState;
  if (change.error !== undefined) columns.error = change.error;
  if (change.errorReason !== undefined) columns.error_reason = change.errorReason;
  if (change.startedAt !== undefined) columns.started_at = change.startedAt;
  if (change.completedAt !== undefined) columns.completed_at = change.completedAt;
  if (change.ownerHost !== undefined) {
    columns.owner_host = change.ownerHost;
    columns.claimed_at = change.updatedAt;
  }
  if (change.labels !== undefined) columns.labels = JSON.stringify(change.labels);
  if (change.approvalId !== undefined) columns.approval_id = change.approvalId;
  if (change.metrics !== undefined) Object.assign(columns, metricColumns(change.metrics));
  if (change.traceContext !== undefined) columns.trace_context = change.traceContext;
  return columns;
}

/**
 * The process manager's storage port (`ProcessStorage` of `@cyrnel/core`) over the tables of
 * migration 0002. A run costs three writes: the insert, the start and the end (results and the
 * calls still in flight in one transaction); each tool call adds a row at its start and an update
 * at its answer, and a running process's text a checkpoint every second (`process-calls.ts`).
 *
 * @example
 * ```ts
 * const manager = createProcessManager({ storage: createProcessStore(db), environments, tools });
 * ```
 */
export function createProcessStore(
  db: Kysely<Database>,
  /** PostgreSQL takes queued work with `FOR UPDATE SKIP LOCKED`; SQLite has one writer at a time. */
  dialect: StoreDialectName = 'sqlite',
): ProcessStorage {
  // `instr` and `strpos` find a substring exactly (LIKE would read `_` as a wildcard).
  const contains = dialect === 'postgres' ? 'strpos' : 'instr';
  // Hot statements are compiled once per column set: compiling costs about a quarter of a write.
  const compiledUpdates = new Map<string, CompiledQuery>();
  let compiledInsert: CompiledQuery | undefined;

  const update = (
    executor: Kysely<Database>,
    id: number,
    columns: Updateable<ProcessesTable>,
  ): Promise<unknown> => {
    const key = Object.keys(columns).join();
    let compiled = compiledUpdates.get(key);
    if (!compiled) {
      compiled = db.updateTable('processes').set(columns).where('id', '=', id).compile();
      compiledUpdates.set(key, compiled);
    }
    return executor.executeQuery({ ...compiled, parameters: [...Object.values(columns), id] });
  };

  const calls = createProcessCalls(db);

  return {
    ...createProcessQuotaStore(db, dialect),
    ...createHostRows(db),
    serviceStats: createServiceStatsQuery(db),
    async insert(process) {
      const values = {
        ref: process.ref,
        key_id: process.keyId,
        principal_id: process.principalId ?? null,
        connections: JSON.stringify(process.connections ?? {}),
        code: process.code,
        state: process.state,
        timeout_ms: process.timeoutMs,
        env_config: JSON.stringify(process.envConfig),
        output: '{}',
        stdout: '',
        stderr: '',
        created_at: process.createdAt,
        updated_at: process.createdAt,
        owner_host: process.ownerHost ?? null,
        claimed_at: process.ownerHost ? process.createdAt : null,
        needs: process.needs?.length ? `,${process.needs.join(',')},` : '',
        trace_context: process.traceContext ?? null,
      };
      compiledInsert ??= db.insertInto('processes').values(values).returning('id').compile();
      const { rows } = await db.executeQuery<{ id: number }>({
        ...compiledInsert,
        parameters: Object.values(values),
      });
      const row = rows[0];
      if (!row) throw new Error('insert into processes returned no id');
      return Number(row.id);
    },

    async get(id) {
      const row = await db
        .selectFrom('processes')
        .select(RECORD_COLUMNS)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async code(id) {
      const row = await db.selectFrom('processes').select('code').where('id', '=', id).executeTakeFirst();
      return row?.code;
    },

    async results(id) {
      const row = await db
        .selectFrom('processes')
        .select(['output', 'stdout', 'stderr'])
        .where('id', '=', id)
        .executeTakeFirst();
      return (
        row && {
          output: parseObject(row.output),
          stdout: row.stdout,
          stderr: row.stderr,
        }
      );
    },

    calls: (id) => calls.read(id),

    async list({ state, exitState, ref, keyId, beforeId, limit }) {
      let query = db.selectFrom('processes').select(SUMMARY_COLUMNS);
      if (state !== undefined) query = query.where('state', '=', state);
      if (exitState !== undefined) query = query.where('exit_state', '=', exitState);
      if (ref !== undefined) query = query.where('ref', '=', ref);
      if (keyId !== undefined) query = query.where('key_id', '=', keyId);
      if (beforeId !== undefined) query = query.where('id', '<', beforeId);
      const rows = await query.orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toSummary);
    },

    async update(id, change) {
      await update(db, id, toColumns(change));
    },

    async finish(id, change, results, ended) {
      const columns = {
        ...toColumns(change),
        output: JSON.stringify(results.output),
        stdout: results.stdout,
        stderr: results.stderr,
      };
      if (ended.length === 0) {
        await update(db, id, columns);
        return;
      }
      await db.transaction().execute(async (trx) => {
        await update(trx, id, columns);
        await calls.put(trx, id, ended);
      });
    },

    openCalls: (id, opened, ended) => calls.open(id, opened, ended),
    checkpoint: (id, results) => calls.checkpoint(id, results),

    async reset(id, change) {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('processes')
          .set({
            ...toColumns(change),
            output: '{}',
            stdout: '',
            stderr: '',
            kill_requested_at: null,
            kill_reason: null,
            ...NO_METRICS,
          })
          .where('id', '=', id)
          .execute();
        await trx.deleteFrom('process_tool_calls').where('process_id', '=', id).execute();
      });
    },

    async delete(id) {
      return db.transaction().execute(async (trx) => {
        // Explicit rather than trusting ON DELETE CASCADE: SQLite enforces it only with a pragma.
        await trx.deleteFrom('process_tool_calls').where('process_id', '=', id).execute();
        const result = await trx.deleteFrom('processes').where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      });
    },

    async failInterrupted(error, at, errorReason, scope) {
      let query = db
        .updateTable('processes')
        .set({
          state: 'idle',
          exit_state: 'failed',
          error,
          error_reason: errorReason,
          completed_at: at,
          updated_at: at,
          approval_id: null,
        })
        .where('state', 'in', LIVE_STATES);
      if (scope) {
        // Never another live host's runs: only this host's, those of hosts whose heartbeat is
        // stale or gone, and (at a start) those stored before hosts had owners.
        const live = db.selectFrom('hosts').select('id').where('heartbeat_at', '>=', scope.staleBefore);
        query = query.where((eb) =>
          eb.or([
            // Queued work without an owner is the shared queue's, not a leftover.
            ...(scope.unowned ? [eb.and([eb('owner_host', 'is', null), eb('state', '!=', 'queued')])] : []),
            ...(scope.hostId === undefined ? [] : [eb('owner_host', '=', scope.hostId)]),
            eb.and([eb('owner_host', 'is not', null), eb('owner_host', 'not in', live)]),
          ]),
        );
      }
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async claim(hostId, at, { limit, lacking }) {
      if (limit <= 0) return [];
      let candidates = db
        .selectFrom('processes')
        .select('id')
        .where('state', '=', 'queued')
        .where('owner_host', 'is', null);
      for (const module of lacking)
        candidates = candidates.where(sql<number>`${sql.raw(contains)}(needs, ${`,${module},`})`, '=', 0);
      candidates = candidates.orderBy('id').limit(limit);
      // Hosts claiming together each skip the rows another is taking, instead of waiting on them.
      if (dialect === 'postgres') candidates = candidates.forUpdate().skipLocked();
      // A materialized CTE: PostgreSQL may run a subquery of `IN` once per row it updates, and a
      // `LIMIT ... SKIP LOCKED` run again picks other rows (so more than `limit` would be taken).
      const rows = await db
        .with(
          (cte) => cte('picked').materialized(),
          () => candidates,
        )
        .updateTable('processes')
        .set({ owner_host: hostId, claimed_at: at, updated_at: at })
        .where('id', 'in', (eb) => eb.selectFrom('picked').select('picked.id'))
        .where('owner_host', 'is', null)
        .where('state', '=', 'queued')
        .returning([...RECORD_COLUMNS, 'code', 'trace_context'])
        .execute();
      return rows
        .map((row) => ({ record: toRecord(row), code: row.code, traceContext: row.trace_context }))
        .sort((a, b) => a.record.id - b.record.id);
    },
    async countUnclaimed(keyId) {
      let query = db
        .selectFrom('processes')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('state', '=', 'queued')
        .where('owner_host', 'is', null);
      if (keyId !== undefined) query = query.where('key_id', '=', keyId);
      const row = await query.executeTakeFirst();
      return Number(row?.count ?? 0);
    },
    async updateUnclaimed(id, change) {
      const result = await db
        .updateTable('processes')
        .set(toColumns(change))
        .where('id', '=', id)
        .where('state', '=', 'queued')
        .where('owner_host', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
