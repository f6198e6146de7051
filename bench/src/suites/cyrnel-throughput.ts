import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { compare } from '../harness/compare.ts';
import { loadTest } from '../harness/load-test.ts';
import { TRIVIAL } from '../programs.ts';
import { floorThroughputMetric, type SuiteContext } from './suite-context.ts';

/** The best rate with 0 errors, against the floor service's best rate in the same run. */
const TARGET_RATIO = 0.8;

/** Trivial processes per second with autocannon at each configured concurrency. */
export async function runCyrnelThroughput(ctx: SuiteContext, api: CyrnelApi): Promise<void> {
  const { config, report } = ctx;
  const body = JSON.stringify({ code: TRIVIAL, wait: true });
  let best: { readonly perSecond: number; readonly connections: number } | undefined;
  for (const connections of config.concurrencies) {
    ctx.log(`cyrnel: throughput at concurrency ${connections}`);
    const load = await loadTest(`${api.url}/processes`, body, connections, config.throughputSeconds);
    if (load.errors === 0 && (!best || load.perSecond > best.perSecond))
      best = { perSecond: load.perSecond, connections };
    compare(report, {
      section: 'throughput',
      metric: `cyrnel: processes/s at concurrency ${connections}`,
      unit: 'proc/s',
      value: load.perSecond,
      baseline: floorThroughputMetric(connections),
      label: 'floor',
      note: load.detail,
    });
  }
  const floors = config.concurrencies
    .map((c) => report.find(floorThroughputMetric(c))?.value)
    .filter((v): v is number => v !== undefined);
  const floorBest = floors.length ? Math.max(...floors) : undefined;
  report.add({
    section: 'throughput',
    metric: 'cyrnel: best throughput with 0 errors',
    unit: 'proc/s',
    ...(best ? { value: best.perSecond } : {}),
    ...(floorBest === undefined ? {} : { baseline: { label: 'floor best', value: floorBest } }),
    ...(floorBest === undefined || !best ? {} : { ratio: best.perSecond / floorBest }),
    target: `≥ ${TARGET_RATIO}× floor, 0 errors`,
    met: best && floorBest !== undefined ? best.perSecond / floorBest >= TARGET_RATIO : false,
    note: best
      ? `at concurrency ${best.connections}; autocannon runs in the bench process on the same machine`
      : 'every concurrency level had errors',
  });
}
