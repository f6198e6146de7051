import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { compare } from '../harness/compare.ts';
import { measure } from '../harness/measure.ts';
import { parallelCallsProgram, sequentialCallsProgram } from '../programs.ts';
import { METRIC, type SuiteContext } from './suite-context.ts';

const SERVICE = 'upstream';

/** Installs the upstream as an OpenAPI service, then 1,000 sequential and 100 parallel calls in one process. */
export async function runCyrnelToolCalls(ctx: SuiteContext, api: CyrnelApi): Promise<void> {
  const { config, report, upstream } = ctx;
  ctx.log('cyrnel: tool-call overhead');
  await api.post('/services', {
    id: SERVICE,
    adapter: 'openapi',
    definition: upstream.openapi,
    enabled: true,
  });
  const seqCode = sequentialCallsProgram(SERVICE, 1_000);
  const check = await api.run(seqCode, 120_000);
  if ((check.output as { sum?: number } | undefined)?.sum !== 499_500) {
    throw new Error(`the tool-call chain returned ${JSON.stringify(check.output)}`);
  }
  const seq = await measure(() => api.run(seqCode, 120_000), { warmup: 0, reps: config.chainReps });
  compare(report, {
    section: 'tool calls',
    metric: 'cyrnel: 1,000 sequential tool calls in one process',
    unit: 'ms',
    stats: seq,
    baseline: METRIC.fetchSeq,
    label: 'fetch',
    maxRatio: 1.1,
    target: '≤ 1.10×',
    note: 'whole process round trip (HTTP, sandbox, gate, adapter, upstream) over a plain fetch loop',
  });
  compare(report, {
    section: 'tool calls',
    metric: 'cyrnel vs peer: 1,000 sequential tool calls',
    unit: 'ms',
    value: seq.p50,
    baseline: METRIC.peerSeq,
    label: 'peer',
  });
  const parCode = parallelCallsProgram(SERVICE, 100);
  await api.run(parCode);
  const par = await measure(() => api.run(parCode), { warmup: 2, reps: config.batchReps });
  compare(report, {
    section: 'tool calls',
    metric: 'cyrnel: 100 parallel tool calls in one process',
    unit: 'ms',
    stats: par,
    baseline: METRIC.fetchPar,
    label: 'fetch',
    maxRatio: 1.2,
    target: '≤ 1.2×',
  });
  compare(report, {
    section: 'tool calls',
    metric: 'cyrnel vs peer: 100 tool calls under Promise.all',
    unit: 'ms',
    value: par.p50,
    baseline: METRIC.peerPar,
    label: 'peer',
  });
}
