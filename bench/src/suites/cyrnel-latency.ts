import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { compare } from '../harness/compare.ts';
import { measure } from '../harness/measure.ts';
import { TRIVIAL } from '../programs.ts';
import { METRIC, type SuiteContext, TRIVIAL_PROCESS } from './suite-context.ts';

/** `POST /processes {wait:true}` with the trivial program, against floor (a)+(b) and the peer. */
export async function runCyrnelLatency(ctx: SuiteContext, api: CyrnelApi): Promise<void> {
  const { config, report } = ctx;
  ctx.log('cyrnel: trivial process latency');
  const first = await api.run(TRIVIAL);
  if (JSON.stringify(first.output) !== '{"ok":true}')
    throw new Error(`unexpected output ${JSON.stringify(first.output)}`);
  const stats = await measure(() => api.run(TRIVIAL), { warmup: config.warmup, reps: config.latencyReps });
  compare(report, {
    section: 'latency',
    metric: TRIVIAL_PROCESS,
    unit: 'ms',
    stats,
    baseline: METRIC.floorAB,
    label: 'floor (a)+(b)',
    maxRatio: 1.5,
    target: '≤ 1.5×',
  });
  compare(report, {
    section: 'latency',
    metric: 'cyrnel vs peer: trivial program',
    unit: 'ms',
    value: stats.p50,
    baseline: METRIC.peerTrivial,
    label: 'peer',
    maxRatio: 1 / 2,
    target: '≤ 0.5× (≥ 2× faster)',
    note: "cyrnel's number includes HTTP, SQLite persistence and the sandbox process hop; the peer's is an in-process call",
  });
}
