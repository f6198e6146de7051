import type { ServiceStatsStorage, ServiceUsage } from '@cyrnel/core';
import type { Kysely } from 'kysely';
import type { Database } from './database';

/** A sum as a driver answers it (PostgreSQL's `numeric` as text), or null over no rows. */
type Sum = string | number | bigint | null;

const count = (value: Sum): number => (value === null ? 0 : Number(value));

/**
 * `serviceStats` of the process store: one statement over the stored rows (consistent in itself,
 * the same on every host sharing the database). The calls of the service are grouped per process
 * (through the index of migration 0023, `service_id, process_id`), joined to the processes whose
 * run ended with metrics, and summed.
 *
 * @example
 * ```ts
 * const serviceStats = createServiceStatsQuery(db);
 * await serviceStats('shop'); // { runs: 3, toolCalls: 6, toolResultBytes: 1416, ... }
 * ```
 */
export function createServiceStatsQuery(db: Kysely<Database>): ServiceStatsStorage['serviceStats'] {
  return async (serviceId): Promise<ServiceUsage> => {
    const row = await db
      .selectFrom('processes as p')
      .innerJoin(
        (eb) =>
          eb
            .selectFrom('process_tool_calls')
            .select((calls) => [
              'process_id',
              calls.fn.countAll<number>().as('calls'),
              calls.fn.sum<Sum>('result_bytes').as('bytes'),
            ])
            .where('service_id', '=', serviceId)
            .groupBy('process_id')
            .as('c'),
        (join) => join.onRef('c.process_id', '=', 'p.id'),
      )
      .select((eb) => [
        eb.fn.countAll<number>().as('runs'),
        eb.fn.sum<Sum>('c.calls').as('tool_calls'),
        eb.fn.sum<Sum>('c.bytes').as('tool_result_bytes'),
        eb.fn.sum<Sum>('p.metric_returned_bytes').as('returned_bytes'),
        eb.fn.sum<Sum>('p.metric_wall_ms').as('wall_ms'),
        eb.fn.sum<Sum>('p.metric_cpu_ms').as('cpu_ms'),
        eb.fn.min('p.started_at').as('first_run_at'),
        eb.fn.max('p.completed_at').as('last_run_at'),
      ])
      // Every run's metrics carry a wall time: null is a run not ended (or stored before them).
      .where('p.metric_wall_ms', 'is not', null)
      .executeTakeFirstOrThrow();
    return {
      runs: count(row.runs),
      toolCalls: count(row.tool_calls),
      toolResultBytes: count(row.tool_result_bytes),
      returnedBytes: count(row.returned_bytes),
      wallMs: count(row.wall_ms),
      cpuMs: row.cpu_ms === null ? null : Number(row.cpu_ms),
      firstRunAt: row.first_run_at ?? null,
      lastRunAt: row.last_run_at ?? null,
    };
  };
}
