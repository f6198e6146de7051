import type { Stats } from './stats.ts';

/** One line of the results table. */
export interface Row {
  readonly section: string;
  readonly metric: string;
  /** Unit of p50/p90/p99 and `value` (e.g. `ms`, `MB`, `req/s`). */
  readonly unit: string;
  readonly stats?: Stats;
  /** A single measured number when there is no distribution (throughput, RSS, one-off times). */
  readonly value?: number;
  /** What the metric is compared with: a floor or the peer, with its number in `unit`. */
  readonly baseline?: { readonly label: string; readonly value: number };
  readonly ratio?: number;
  readonly target?: string;
  /** `null` when the row has a target that could not be evaluated. */
  readonly met?: boolean | null;
  readonly note?: string;
}

/** A part of the suite that could not run, and why. */
export interface Skip {
  readonly section: string;
  readonly reason: string;
}

/** Collects rows, notes and skipped parts as the suite runs. */
export interface Report {
  readonly rows: Row[];
  readonly notes: string[];
  /** Parts that could not run because something failed (before the time budget ran out). */
  readonly skips: Skip[];
  /** Parts the time budget cut short: whatever they reported after {@link Report.cut} is here, not in `skips`. */
  readonly unfinished: Skip[];
  /** Why the run was cut short (its time budget ran out); undefined while it was not. */
  readonly cutReason: string | undefined;
  add(row: Row): Row;
  note(text: string): void;
  /** A part could not run; after {@link Report.cut} it goes to `unfinished` (the cut stopped it). */
  skip(section: string, error: unknown): void;
  /** The time budget ran out: the parts still running are stopped; nothing they report counts as a failure. */
  cut(reason: string): void;
  /** The p50 (or single value) of a row already added, by metric name. */
  find(metric: string): Row | undefined;
}

/** A fresh, empty report. */
export function createReport(): Report {
  const rows: Row[] = [];
  const notes: string[] = [];
  const skips: Skip[] = [];
  const unfinished: Skip[] = [];
  let cutReason: string | undefined;
  return {
    rows,
    notes,
    skips,
    unfinished,
    get cutReason() {
      return cutReason;
    },
    add(row) {
      rows.push(row);
      return row;
    },
    note(text) {
      notes.push(text);
    },
    skip(section, error) {
      const reason = error instanceof Error ? error.message : String(error);
      (cutReason === undefined ? skips : unfinished).push({ section, reason });
    },
    cut(reason) {
      cutReason ??= reason;
    },
    find(metric) {
      return rows.find((row) => row.metric === metric);
    },
  };
}

/** The central number of a row: its median, or its single value. */
export function central(row: Row | undefined): number | undefined {
  if (!row) return undefined;
  return row.stats?.p50 ?? row.value;
}
