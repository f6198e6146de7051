import { efficiencyRatio, efficiencySummary, type ProcessMetrics } from '@cyrnel/sdk/api';

/**
 * The `_meta` key of the efficiency meter on the results of `execute_typescript`, `wait_process`
 * and `get_process` once the run ended (named like cyrnel's other keys, `cyrnel/processId`).
 */
export const EFFICIENCY_META = 'cyrnel/efficiency';

/**
 * What `_meta["cyrnel/efficiency"]` holds: the run's metrics (`ProcessRecord.metrics`), the ratio
 * of bytes read from tools to bytes returned, and one sentence saying so. In `_meta`, for the
 * client and its host to show or log: never in the text the model reads, which it would lengthen.
 *
 * @example
 * ```json
 * { "toolCalls": 2, "toolResultBytes": 708, "returnedBytes": 61, "wallMs": 41.3, "cpuMs": 2.1,
 *   "ratio": 11.61, "summary": "this run read 708 B from tools in 2 calls and returned 61 B to the model (11.61× less)" }
 * ```
 */
export interface EfficiencyMeta extends ProcessMetrics {
  readonly ratio: number | null;
  readonly summary: string;
}

/** The `_meta` value of a run's metrics; undefined while the run has none (not ended). */
export function efficiencyMeta(metrics: ProcessMetrics | null | undefined): EfficiencyMeta | undefined {
  if (!metrics) return undefined;
  return { ...metrics, ratio: efficiencyRatio(metrics), summary: efficiencySummary(metrics) };
}
