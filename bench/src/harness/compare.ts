import { central, type Report, type Row } from './report.ts';
import type { Stats } from './stats.ts';

/** A measured cyrnel number set against a baseline row, with an optional ratio target. */
export interface CompareOptions {
  readonly section: string;
  readonly metric: string;
  readonly unit: string;
  readonly stats?: Stats;
  readonly value?: number;
  /** Metric name of the baseline row (a floor or the peer). */
  readonly baseline: string;
  /** Short label for the baseline cell. */
  readonly label: string;
  /** Largest acceptable ratio cyrnel / baseline, for a row that has a target. */
  readonly maxRatio?: number;
  readonly target?: string;
  readonly note?: string;
}

/** Adds a row whose ratio is this row's median (or value) over the baseline's. */
export function compare(report: Report, options: CompareOptions): Row {
  const base = central(report.find(options.baseline));
  const mine = options.stats?.p50 ?? options.value;
  const ratio = base !== undefined && mine !== undefined && base > 0 ? mine / base : undefined;
  const hasTarget = options.maxRatio !== undefined;
  return report.add({
    section: options.section,
    metric: options.metric,
    unit: options.unit,
    ...(options.stats ? { stats: options.stats } : { value: options.value }),
    ...(base === undefined ? {} : { baseline: { label: options.label, value: base } }),
    ...(ratio === undefined ? {} : { ratio }),
    ...(hasTarget
      ? { target: options.target, met: ratio === undefined ? null : ratio <= (options.maxRatio as number) }
      : {}),
    ...(base === undefined
      ? { note: `${options.note ? `${options.note}; ` : ''}baseline "${options.baseline}" did not run` }
      : options.note
        ? { note: options.note }
        : {}),
  });
}
