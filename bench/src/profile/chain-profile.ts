// Profiles of a 1,000-call chain on every thread it crosses: the server's main thread, the
// egress gateway's worker threads, and the sandbox child that runs the program. `--cpu-prof`
// applies to every thread of every Node process that inherits NODE_OPTIONS; a worker writes its
// profile when it exits (the server's shutdown stops it), a sandbox child when the host's IPC
// channel closes on its own (the server's shutdown SIGKILLs its children, so the child's profile
// comes from a second run whose server is SIGKILLed instead).
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { startServerProcess } from '../cyrnel/server-process.ts';
import type { Resources } from '../harness/resources.ts';
import {
  CHILD_CALL_AREAS,
  formatProfileSummary,
  type ProfileSummary,
  summarizeCpuProfile,
  WORKER_AREAS,
} from './cpu-profile-summary.ts';

/** One chain's set-up and work, on a fresh server. */
export interface ChainWork {
  readonly title: string;
  /** Units of work (tool calls) over the whole run, warm-up included. */
  readonly units: number;
  run(api: ReturnType<typeof createCyrnelApi>): Promise<void>;
}

// `CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile`; the main thread is thread 0.
function threadOf(file: string): { pid: number; tid: number } | undefined {
  const m = /\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(file);
  return m ? { pid: Number(m[1]), tid: Number(m[2]) } : undefined;
}

function sum(summaries: readonly ProfileSummary[]): ProfileSummary {
  const first = summaries[0] as ProfileSummary;
  const hot = new Map<string, number>();
  for (const s of summaries) for (const h of s.hottest) hot.set(h.fn, (hot.get(h.fn) ?? 0) + h.msPerUnit);
  const busy = summaries.reduce((a, s) => a + s.busyMsPerUnit, 0);
  return {
    busyMsPerUnit: busy,
    areas: first.areas.map((a, i) => {
      const ms = summaries.reduce((acc, s) => acc + (s.areas[i]?.msPerUnit ?? 0), 0);
      return { area: a.area, msPerUnit: ms, share: busy ? ms / busy : 0 };
    }),
    hottest: [...hot]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([fn, msPerUnit]) => ({ fn, msPerUnit })),
  };
}

/** Runs `work` on a fresh server under `--cpu-prof`; answers the profiles' directory and the server's pid. */
async function profiledRun(
  resources: Resources,
  work: ChainWork,
  kill: boolean,
  env: Record<string, string>,
) {
  const dir = await mkdtemp(join(tmpdir(), 'cyrnel-profile-'));
  resources.defer(() => rm(dir, { recursive: true, force: true }));
  const server = await startServerProcess(resources, {
    ...env,
    NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}`,
  });
  try {
    await work.run(createCyrnelApi(server.url));
    if (kill) {
      process.kill(server.pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  } finally {
    await server.stop();
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return { dir, pid: server.pid, files: (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')) };
}

/**
 * Runs `work` on a fresh server under `--cpu-prof` (twice: see above) and sums up each thread's
 * profile; `env` is the server's (`CYRNEL_OTEL` for a traced one).
 */
export async function profiledChain(
  resources: Resources,
  work: ChainWork,
  env: Record<string, string> = {},
): Promise<string> {
  const { dir, pid, files } = await profiledRun(resources, work, false, env);
  const server = { pid };
  const main = files.find((f) => threadOf(f)?.pid === server.pid && threadOf(f)?.tid === 0);
  if (!main) throw new Error(`the server wrote no profile for ${work.title}`);
  const workers = files.filter((f) => threadOf(f)?.pid === server.pid && threadOf(f)?.tid !== 0);
  const parts = [
    formatProfileSummary(
      `${work.title}: server main thread`,
      summarizeCpuProfile(join(dir, main), work.units),
    ),
  ];
  const summarize = (list: readonly string[], areas: typeof WORKER_AREAS) =>
    list.map((f) => summarizeCpuProfile(join(dir, f), work.units, areas));
  // The egress gateway's workers run `egress-worker.js`; the rest are the gate's validation
  // workers, the adapters' own (the MCP adapter's answer parsers) and tracing's exporter.
  const gateway = workers.filter((f) => readFileSync(join(dir, f), 'utf8').includes('egress-worker'));
  const others = workers.filter((f) => !gateway.includes(f));
  for (const [list, who] of [
    [gateway, 'egress gateway workers'],
    [others, 'other worker threads (validation, adapters, the tracing exporter)'],
  ] as const)
    if (list.length)
      parts.push(
        formatProfileSummary(
          `${work.title}: ${who} (${list.length}, summed)`,
          sum(summarize(list, WORKER_AREAS)),
          who,
        ),
      );
  const second = await profiledRun(resources, work, true, env);
  // Sandbox children only (an MCP server started by the adapter would be another process).
  const children = second.files.filter(
    (f) =>
      threadOf(f)?.pid !== second.pid &&
      threadOf(f)?.tid === 0 &&
      readFileSync(join(second.dir, f), 'utf8').includes('env-typescript-ivm'),
  );
  if (children.length) {
    // The chain runs in one child; the others (the warm pool) are idle: report the busiest.
    const busiest = children
      .map((f) => summarizeCpuProfile(join(second.dir, f), work.units, CHILD_CALL_AREAS))
      .reduce((a, b) => (b.busyMsPerUnit > a.busyMsPerUnit ? b : a));
    parts.push(formatProfileSummary(`${work.title}: the sandbox child`, busiest, 'sandbox child'));
  }
  return parts.join('\n');
}
