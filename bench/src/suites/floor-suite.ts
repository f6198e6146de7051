import { parallelFetches, sequentialFetches } from '../floors/fetch-calls.ts';
import { startFloorServer } from '../floors/floor-server-process.ts';
import { startHonoEcho } from '../floors/hono-echo.ts';
import { createIvmFloor } from '../floors/ivm-context.ts';
import { loadTest } from '../harness/load-test.ts';
import { measure } from '../harness/measure.ts';
import { TRIVIAL } from '../programs.ts';
import { floorThroughputMetric, METRIC, type SuiteContext } from './suite-context.ts';

/** The process-latency floors (a) hono echo and (b) in-process isolate, and their sum. */
export async function runLatencyFloors(ctx: SuiteContext): Promise<void> {
  const { config, report } = ctx;
  const body = JSON.stringify({ code: TRIVIAL, wait: true });
  ctx.log('floor (a): hono echo');
  const echo = await startHonoEcho();
  const closeEcho = ctx.resources.defer(() => echo.close());
  const a = await measure(
    async () => {
      const res = await fetch(`${echo.url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await res.json();
    },
    { warmup: config.warmup, reps: config.latencyReps },
  );
  await closeEcho();
  report.add({ section: 'latency', metric: METRIC.floorA, unit: 'ms', stats: a });

  ctx.log('floor (b): pooled isolate');
  const ivm = createIvmFloor();
  const closeIvm = ctx.resources.defer(() => ivm.close());
  const check = await ivm.run(TRIVIAL);
  if (JSON.stringify(check) !== '{"ok":true}') throw new Error(`floor (b) produced ${JSON.stringify(check)}`);
  const b = await measure(() => ivm.run(TRIVIAL), { warmup: config.warmup, reps: config.latencyReps });
  await closeIvm();
  report.add({ section: 'latency', metric: METRIC.floorB, unit: 'ms', stats: b });
  report.add({
    section: 'latency',
    metric: METRIC.floorAB,
    unit: 'ms',
    value: a.p50 + b.p50,
    note: 'sum of the two medians; the baseline of the trivial process',
  });
}

/** Plain fetch against the upstream: 1,000 sequential requests and 100 in parallel. */
export async function runFetchFloors(ctx: SuiteContext): Promise<void> {
  const { config, report, upstream } = ctx;
  ctx.log('floor: fetch chains');
  await sequentialFetches(upstream.url, 200);
  const seq = await measure(() => sequentialFetches(upstream.url, 1_000), {
    warmup: 1,
    reps: config.chainReps,
  });
  report.add({ section: 'tool calls', metric: METRIC.fetchSeq, unit: 'ms', stats: seq });
  const par = await measure(() => parallelFetches(upstream.url, 100), { warmup: 3, reps: config.batchReps });
  report.add({ section: 'tool calls', metric: METRIC.fetchPar, unit: 'ms', stats: par });
}

/** Throughput of floor (a)+(b) as one service in its own process, at each concurrency. */
export async function runThroughputFloor(ctx: SuiteContext): Promise<void> {
  const { config, report } = ctx;
  const server = await startFloorServer(ctx.resources);
  const body = JSON.stringify({ code: TRIVIAL, wait: true });
  try {
    for (const connections of config.concurrencies) {
      ctx.log(`floor (a)+(b) service: throughput at concurrency ${connections}`);
      const load = await loadTest(`${server.url}/processes`, body, connections, config.throughputSeconds);
      report.add({
        section: 'throughput',
        metric: floorThroughputMetric(connections),
        unit: 'proc/s',
        value: load.perSecond,
        note: `hono + floor (b) with one isolate per core, in a separate process; ${load.detail}`,
      });
    }
  } finally {
    await server.stop();
  }
}
