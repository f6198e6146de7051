import type { BenchConfig } from '../bench-config.ts';
import type { Report } from '../harness/report.ts';
import type { Resources } from '../harness/resources.ts';
import type { Upstream } from '../upstream.ts';

/** What every suite gets: the run's configuration, where to report, what to tear down. */
export interface SuiteContext {
  readonly config: BenchConfig;
  readonly report: Report;
  readonly resources: Resources;
  readonly upstream: Upstream;
  /** Progress line on stderr, so stdout stays the table. */
  log(text: string): void;
}

/** Section names, in table order. */
export const SECTIONS = ['latency', 'throughput', 'tool calls', 'install', 'search', 'memory'] as const;

/** Metric names shared between suites (floors and peer rows are the baselines of cyrnel rows). */
export const METRIC = {
  floorA: 'floor (a): hono echo round trip',
  floorB: 'floor (b): pooled isolate, fresh context, transpile + run',
  floorAB: 'floor (a)+(b)',
  peerTrivial: 'peer: trivial program (callToolChain)',
  fetchSeq: 'floor: 1,000 sequential fetches',
  fetchPar: 'floor: 100 parallel fetches',
  peerSeq: 'peer: 1,000 sequential tool calls',
  peerPar: 'peer: 100 tool calls under Promise.all',
} as const;

/** Metric name of cyrnel's trivial process through `POST /processes {wait:true}`. */
export const TRIVIAL_PROCESS = 'cyrnel: trivial process (POST /processes, wait)';

/** Metric name of the floor (a)+(b) service's throughput at one concurrency. */
export function floorThroughputMetric(connections: number): string {
  return `floor (a)+(b) service: processes/s at concurrency ${connections}`;
}
