import autocannon from 'autocannon';
import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { TRIVIAL } from '../programs.ts';
import type { SuiteContext } from './suite-context.ts';

const TARGET_PER_SECOND = 2_000;

/** Trivial processes per second with autocannon at each configured concurrency. */
export async function runCyrnelThroughput(ctx: SuiteContext, api: CyrnelApi): Promise<void> {
  const { config, report } = ctx;
  const body = JSON.stringify({ code: TRIVIAL, wait: true });
  let best: { readonly perSecond: number; readonly connections: number } | undefined;
  for (const connections of config.concurrencies) {
    ctx.log(`cyrnel: throughput at concurrency ${connections}`);
    const result = await autocannon({
      url: `${api.url}/processes`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      connections,
      duration: config.throughputSeconds,
      timeout: 30,
    });
    const ok = result['2xx'];
    const errors = result.errors + result.timeouts + result.non2xx;
    const perSecond = ok / result.duration;
    if (errors === 0 && (!best || perSecond > best.perSecond)) best = { perSecond, connections };
    report.add({
      section: 'throughput',
      metric: `cyrnel: processes/s at concurrency ${connections}`,
      unit: 'proc/s',
      value: perSecond,
      note: `${ok} ok, ${errors} errors (${result.non2xx} non-2xx, ${result.timeouts} timeouts); request latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
    });
  }
  report.add({
    section: 'throughput',
    metric: 'cyrnel: best throughput with 0 errors',
    unit: 'proc/s',
    ...(best ? { value: best.perSecond } : {}),
    target: `≥ ${TARGET_PER_SECOND.toLocaleString('en-US')}/s, 0 errors`,
    met: best ? best.perSecond >= TARGET_PER_SECOND : false,
    note: best
      ? `at concurrency ${best.connections}; autocannon runs in the bench process on the same machine`
      : 'every concurrency level had errors',
  });
}
