import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { type TreeMemory, treeCpuMs, treeMemory } from '../cyrnel/proc-memory.ts';
import type { ServerProcess } from '../cyrnel/server-process.ts';
import { TRIVIAL } from '../programs.ts';
import type { SuiteContext } from './suite-context.ts';

const IDLE_TARGET_MB = 100;
// RSS may grow this much over the first checkpoint of the leak run before it counts as growth.
const LEAK_BOUND = 1.25;

function describe(m: TreeMemory): string {
  return `server ${m.mainMb.toFixed(0)} MB + ${m.children} child process(es) ${m.childrenMb.toFixed(0)} MB`;
}

const ENV_CONFIG = '/modules/typescript-ivm/config';
// Short enough to wait for; the server's default (5 min) is what an operator gets.
const BENCH_IDLE_TIMEOUT_MS = 500;

/**
 * Idle RSS: just after start (the sandbox pool starts warm), then once the pool has stopped its
 * idle children (`idleTimeoutMs`, shortened for the bench), which is what an idle server holds.
 * The pool is warm again (default config) when this returns.
 */
export async function recordIdleMemory(
  ctx: SuiteContext,
  api: CyrnelApi,
  server: ServerProcess,
): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const fresh = treeMemory(server.pid);
  ctx.report.add({
    section: 'memory',
    metric: 'cyrnel: RSS just after start, server + warm sandbox pool',
    unit: 'MB',
    value: fresh.totalMb,
    note: describe(fresh),
  });
  await api.patch(ENV_CONFIG, [{ op: 'add', path: '/idleTimeoutMs', value: BENCH_IDLE_TIMEOUT_MS }]);
  try {
    const until = Date.now() + 15_000;
    while (treeMemory(server.pid).children > 0) {
      if (Date.now() > until) throw new Error('the sandbox pool did not stop its idle children');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const m = treeMemory(server.pid);
    const idleRow = (metric: string, mb: number, note?: string) =>
      ctx.report.add({
        section: 'memory',
        metric,
        unit: 'MB',
        value: mb,
        target: `≤ ${IDLE_TARGET_MB} MB`,
        met: mb <= IDLE_TARGET_MB,
        ...(note === undefined ? {} : { note }),
      });
    idleRow('cyrnel: idle RSS, server process', m.mainMb);
    idleRow(
      'cyrnel: idle RSS, server + sandbox children',
      m.totalMb,
      `${describe(m)}, after idleTimeoutMs (${BENCH_IDLE_TIMEOUT_MS} ms here, 5 min by default) stopped the idle pool`,
    );
  } finally {
    await api.patch(ENV_CONFIG, [{ op: 'remove', path: '/idleTimeoutMs' }]);
  }
}

/** RSS with the sandbox pool warm, and the RSS of one sandbox child (one isolate each). */
export function recordWarmMemory(ctx: SuiteContext, server: ServerProcess): void {
  const m = treeMemory(server.pid);
  ctx.report.add({
    section: 'memory',
    metric: 'cyrnel: RSS with the pool warm',
    unit: 'MB',
    value: m.totalMb,
    note: describe(m),
  });
  if (m.children > 0) {
    ctx.report.add({
      section: 'memory',
      metric: 'cyrnel: per-isolate cost (RSS of one sandbox child)',
      unit: 'MB',
      value: m.childrenMb / m.children,
      note: `${m.children} children; each is a Node process holding its isolate`,
    });
  }
}

/** Runs many trivial processes (8 at a time) and checks RSS does not keep growing. */
export async function runLeakCheck(ctx: SuiteContext, api: CyrnelApi, server: ServerProcess): Promise<void> {
  const total = ctx.config.leakProcesses;
  ctx.log(`cyrnel: ${total} trivial processes for the leak check`);
  const checkpoints: TreeMemory[] = [];
  let started = 0;
  let done = 0;
  const step = Math.max(1, Math.floor(total / 10));
  const cpuBefore = treeCpuMs(server.pid);
  const clientBefore = process.cpuUsage();
  const startedAt = performance.now();
  const worker = async () => {
    while (started < total) {
      started++;
      await api.run(TRIVIAL);
      done++;
      if (done % step === 0) checkpoints.push(treeMemory(server.pid));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const seconds = (performance.now() - startedAt) / 1000;
  const cpuAfter = treeCpuMs(server.pid);
  const client = process.cpuUsage(clientBefore);
  const end = treeMemory(server.pid);
  const mainMs = (cpuAfter.mainMs - cpuBefore.mainMs) / total;
  const childMs = (cpuAfter.childrenMs - cpuBefore.childrenMs) / total;
  ctx.report.add({
    section: 'throughput',
    metric: 'cyrnel: server CPU per trivial process',
    unit: 'ms',
    value: mainMs,
    note: `user+system CPU of the server process over ${total} processes run 8 at a time (${(total / seconds).toFixed(0)}/s); one core caps the server at about ${(1000 / mainMs).toFixed(0)} processes/s`,
  });
  ctx.report.add({
    section: 'throughput',
    metric: 'cyrnel: sandbox children CPU per trivial process',
    unit: 'ms',
    value: childMs,
    note: `the bench client itself used ${((client.user + client.system) / 1000 / total).toFixed(2)} ms of CPU per process (fetch, JSON) on the same machine`,
  });
  const first = checkpoints[0]?.totalMb ?? Number.NaN;
  const half = checkpoints.slice(Math.floor(checkpoints.length / 2));
  const slope =
    half.length > 1
      ? (((half[half.length - 1] as TreeMemory).totalMb - (half[0] as TreeMemory).totalMb) /
          ((half.length - 1) * step)) *
        1000
      : Number.NaN;
  const series = (pick: (m: TreeMemory) => number) => checkpoints.map((c) => pick(c).toFixed(0)).join(', ');
  const ratio = end.totalMb / first;
  ctx.report.add({
    section: 'memory',
    metric: `cyrnel: RSS after ${total.toLocaleString('en-US')} more processes`,
    unit: 'MB',
    value: end.totalMb,
    baseline: { label: `after ${step.toLocaleString('en-US')}`, value: first },
    ratio,
    target: `≤ ${LEAK_BOUND}× (no leak)`,
    met: Number.isNaN(ratio) ? null : ratio <= LEAK_BOUND,
    note: `${describe(end)}; checkpoints every ${step} (MB): total ${series((m) => m.totalMb)}; server ${series((m) => m.mainMb)}; children ${series((m) => m.childrenMb)}; second half grows ${slope.toFixed(1)} MB per 1,000 processes`,
  });
}
