import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { threadsCpuMs, treeCpuMs } from '../cyrnel/proc-memory.ts';
import type { ServerProcess } from '../cyrnel/server-process.ts';
import { compare } from '../harness/compare.ts';
import { measure } from '../harness/measure.ts';
import { parallelCallsProgram, sequentialCallsProgram } from '../programs.ts';
import { METRIC, type SuiteContext } from './suite-context.ts';

const SERVICE = 'upstream';
const ENV_CONFIG = '/modules/typescript-ivm/config';

/** Installs the upstream as an OpenAPI service, then 1,000 sequential and 100 parallel calls in one process. */
export async function runCyrnelToolCalls(
  ctx: SuiteContext,
  api: CyrnelApi,
  server: ServerProcess,
): Promise<void> {
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
  const cpuBefore = treeCpuMs(server.pid);
  const mainBefore = threadsCpuMs(server.pid, 'MainThread');
  const workersBefore = threadsCpuMs(server.pid, 'WorkerThread');
  const seq = await measure(() => api.run(seqCode, 120_000), { warmup: 0, reps: config.chainReps });
  const cpuAfter = treeCpuMs(server.pid);
  const calls = config.chainReps * 1_000;
  const mainCpuPerCall = (threadsCpuMs(server.pid, 'MainThread') - mainBefore) / calls;
  const gatewayCpuPerCall = (threadsCpuMs(server.pid, 'WorkerThread') - workersBefore) / calls;
  report.add({
    section: 'tool calls',
    metric: "cyrnel: server main thread's CPU per tool call",
    unit: 'ms',
    value: mainCpuPerCall,
    target: '≤ 0.1 ms',
    met: mainCpuPerCall <= 0.1,
    note: `user+system CPU of the server's main thread over ${calls} sequential calls (its share of each process and the audit of each call included); the whole server process used ${((cpuAfter.mainMs - cpuBefore.mainMs) / calls).toFixed(3)} ms per call, the sandbox children ${((cpuAfter.childrenMs - cpuBefore.childrenMs) / calls).toFixed(3)} ms`,
  });
  report.add({
    section: 'tool calls',
    metric: "cyrnel: egress gateway's own CPU per tool call",
    unit: 'ms',
    value: gatewayCpuPerCall,
    note: `user+system CPU of the server's worker threads (the egress gateway's, which read the socket frame, validate, call the adapter, serialise the answer once and wait for the audit) over ${calls} sequential calls`,
  });
  compare(report, {
    section: 'tool calls',
    metric: 'cyrnel: 1,000 sequential tool calls in one process',
    unit: 'ms',
    stats: seq,
    baseline: METRIC.fetchSeq,
    label: 'fetch',
    maxRatio: 1.3,
    target: '≤ 1.3×',
    note: 'whole process round trip (HTTP, sandbox, egress gateway with its audit, adapter, upstream) over a plain fetch loop',
  });
  compare(report, {
    section: 'tool calls',
    metric: 'cyrnel vs peer: 1,000 sequential tool calls',
    unit: 'ms',
    value: seq.p50,
    baseline: METRIC.peerSeq,
    label: 'peer',
  });
  // The same chain through the host's gate (`directToolCalls: false`): what direct calls save.
  await api.patch(ENV_CONFIG, [{ op: 'add', path: '/directToolCalls', value: false }]);
  try {
    await api.run(seqCode, 120_000);
    const gated = await measure(() => api.run(seqCode, 120_000), { warmup: 0, reps: config.chainReps });
    compare(report, {
      section: 'tool calls',
      metric: 'cyrnel: 1,000 sequential tool calls through the host gate',
      unit: 'ms',
      stats: gated,
      baseline: METRIC.fetchSeq,
      label: 'fetch',
      note: "directToolCalls: false (every call crosses to the server's main thread and back, whose gate calls the egress gateway)",
    });
  } finally {
    await api.patch(ENV_CONFIG, [{ op: 'remove', path: '/directToolCalls' }]);
  }
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
    maxRatio: 1.5,
    target: '≤ 1.5×',
    note: 'through the egress gateway (2 worker threads by default)',
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
