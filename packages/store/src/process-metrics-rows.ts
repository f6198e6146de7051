import type { ProcessMetrics } from '@cyrnel/sdk/api';
import type { Selectable, Updateable } from 'kysely';
import type { ProcessesTable } from './process-tables';

/** The columns of a run's metrics on a process row (migration 0023). */
export const METRIC_COLUMNS = [
  'metric_tool_calls',
  'metric_tool_result_bytes',
  'metric_returned_bytes',
  'metric_wall_ms',
  'metric_cpu_ms',
] as const;

type MetricRow = Pick<Selectable<ProcessesTable>, (typeof METRIC_COLUMNS)[number]>;

/** Every metric column null: a run not ended (or stored before migration 0023). */
export const NO_METRICS: Required<Pick<Updateable<ProcessesTable>, (typeof METRIC_COLUMNS)[number]>> = {
  metric_tool_calls: null,
  metric_tool_result_bytes: null,
  metric_returned_bytes: null,
  metric_wall_ms: null,
  metric_cpu_ms: null,
};

/** The columns of `metrics` (null: all of them null). */
export function metricColumns(metrics: ProcessMetrics | null): typeof NO_METRICS {
  if (metrics === null) return NO_METRICS;
  return {
    metric_tool_calls: metrics.toolCalls,
    metric_tool_result_bytes: metrics.toolResultBytes,
    metric_returned_bytes: metrics.returnedBytes,
    metric_wall_ms: metrics.wallMs,
    metric_cpu_ms: metrics.cpuMs,
  };
}

/**
 * A row's metrics, or null when the run has none: the wall time is written with every run's
 * metrics, so it tells. Numbers may come back as strings (PostgreSQL's `bigint`): read with `Number`.
 */
export function metricsOf(row: MetricRow): ProcessMetrics | null {
  if (row.metric_wall_ms === null) return null;
  return {
    toolCalls: Number(row.metric_tool_calls ?? 0),
    toolResultBytes: Number(row.metric_tool_result_bytes ?? 0),
    returnedBytes: Number(row.metric_returned_bytes ?? 0),
    wallMs: Number(row.metric_wall_ms),
    cpuMs: row.metric_cpu_ms === null ? null : Number(row.metric_cpu_ms),
  };
}
