// `pnpm --filter @cyrnel/bench profile`: runs the server under V8's CPU profiler for two
// workloads (trivial processes, sequential tool calls) and writes where its main thread
// spends time to results/profile.md. Separate from `pnpm bench` so profiling never skews it.
// What follows the KEPT marker in profile.md (written by hand: the idle memory, the analysis)
// is kept as it is.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCyrnelApi } from './cyrnel/cyrnel-api.ts';
import { startServerProcess } from './cyrnel/server-process.ts';
import { readGitHubDefinition } from './github-definition.ts';
import { speedLine } from './harness/format-table.ts';
import { machineInfo } from './harness/machine-info.ts';
import { createResources } from './harness/resources.ts';
import { profiledChain } from './profile/chain-profile.ts';
import {
  CHILD_AREAS,
  formatProfileSummary,
  SERVER_AREAS,
  summarizeCpuProfile,
} from './profile/cpu-profile-summary.ts';
import { mcpChainWork } from './profile/mcp-chain.ts';
import { sequentialCallsProgram, TRIVIAL } from './programs.ts';
import { startCollector } from './suites/cyrnel-tracing.ts';
import { startUpstream } from './upstream.ts';

const PROCESSES = 1_500;
const CHAINS = 5;
const resources = createResources();
const machine = machineInfo();

async function profiled(
  title: string,
  units: number,
  work: (api: ReturnType<typeof createCyrnelApi>) => Promise<undefined | { fromUs: number; toUs: number }>,
) {
  const dir = await mkdtemp(join(tmpdir(), 'cyrnel-profile-'));
  resources.defer(() => rm(dir, { recursive: true, force: true }));
  const server = await startServerProcess(resources, { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` });
  let window: { fromUs: number; toUs: number } | undefined;
  try {
    window = (await work(createCyrnelApi(server.url))) ?? undefined;
  } finally {
    await server.stop();
  }
  const files = await readdir(dir);
  const file = files.find((f) => f.includes(`.${server.pid}.0.`));
  if (!file) throw new Error(`the server wrote no profile for ${title}`);
  const main = formatProfileSummary(title, summarizeCpuProfile(join(dir, file), units, SERVER_AREAS, window));
  if (!window) return main;
  // Within a window, the server's other threads too (validation, egress, exporter workers).
  const others = files
    .filter((f) => f.includes(`.${server.pid}.`) && f !== file && f.endsWith('.cpuprofile'))
    .map((f) => ({ f, summary: summarizeCpuProfile(join(dir, f), units, SERVER_AREAS, window) }))
    .filter(({ summary }) => summary.busyMsPerUnit >= 1)
    .map(
      ({ f, summary }) =>
        `- worker thread ${f.split('.').at(-3)}: busy ${summary.busyMsPerUnit.toFixed(1)} ms; hottest: ${summary.hottest
          .slice(0, 4)
          .map((h) => `\`${h.fn}\` ${h.msPerUnit.toFixed(1)}`)
          .join(', ')}`,
    );
  return others.length > 0
    ? `${main}\nThe server's other threads during it:\n\n${others.join('\n')}\n`
    : main;
}

// The sandbox children write their profiles only when they exit on their own, which they do
// when the server's IPC channel closes: so this run ends the server with SIGKILL.
async function profiledChildren(units: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cyrnel-profile-'));
  resources.defer(() => rm(dir, { recursive: true, force: true }));
  const server = await startServerProcess(resources, { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` });
  try {
    const api = createCyrnelApi(server.url);
    for (let i = 0; i < units; i++) await api.run(TRIVIAL);
    process.kill(server.pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  } finally {
    await server.stop();
  }
  const files = (await readdir(dir)).filter(
    (f) => f.endsWith('.cpuprofile') && !f.includes(`.${server.pid}.`),
  );
  if (!files.length) throw new Error('the sandbox children wrote no profile');
  // Work is spread over the children: summarize each over its share, then report the busiest.
  const summaries = files.map((f) => summarizeCpuProfile(join(dir, f), units / files.length, CHILD_AREAS));
  const busiest = summaries.reduce((a, b) => (b.busyMsPerUnit > a.busyMsPerUnit ? b : a));
  return formatProfileSummary(
    `${units} sequential trivial processes, sandbox child (unit: one process; ${files.length} children share them)`,
    busiest,
    'sandbox child',
  );
}

const parts = [
  '# Where the cyrnel server spends its time',
  '',
  `${machine.date} · ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}; load average ${machine.loadAverage} at start`,
  '',
  `${speedLine(machine)}.`,
  '',
  'V8 CPU profiles of the server process and, last, of a sandbox child; module loading at start is spread over the units.',
  'V8 samples wall-clock time on the thread: when the server is descheduled inside a system call (a pipe write that wakes the',
  'sandbox child on a busy machine), the time lands on that frame; `writeChannelMessage` is mostly that, not serialization.',
  'For true CPU per process see the "CPU per trivial process" rows of latest.md (from /proc).',
  '',
];
// `--chains`: only the two chains, every thread, printed (results/profile.md is left alone).
const chainsOnly = process.argv.includes('--chains');
// `--install`: only the first install of GitHub's description on a fresh server, printed.
const installOnly = process.argv.includes('--install');
// `--tracing`: only the OpenAPI chain, on a server tracing to a collector on loopback, printed.
const tracingOnly = process.argv.includes('--tracing');
/** A part printed alone (`--chains`, `--tracing`): the trivial processes and the child are left out. */
const printedOnly = chainsOnly || tracingOnly;

/** The first GitHub install of a server that has run one process, timed and profiled alone. */
async function profiledInstall(): Promise<string> {
  const definition = await readGitHubDefinition();
  let ms = 0;
  const summary = await profiled(
    "the first install of GitHub's REST description (unit: the install; only the samples during it)",
    1,
    async (api) => {
      // What the bench's install row follows: a server that has already run processes.
      await api.run(TRIVIAL);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const payload = JSON.stringify({ id: 'github0', adapter: 'openapi', definition });
      const from = process.hrtime.bigint();
      await api.post('/services', payload);
      const to = process.hrtime.bigint();
      ms = Number(to - from) / 1e6;
      return { fromUs: Number(from / 1000n), toUs: Number(to / 1000n) };
    },
  );
  return `${summary}
The install answered in ${ms.toFixed(0)} ms.
`;
}
if (installOnly) {
  try {
    process.stdout.write(`${parts.join('\n')}\n${await profiledInstall()}`);
  } finally {
    await resources.closeAll();
  }
  process.exit(0);
}
try {
  const upstream = await startUpstream();
  resources.defer(() => upstream.close());
  const openapiChain = {
    title: `${CHAINS} processes of 1,000 sequential OpenAPI tool calls (unit: one tool call)`,
    units: (CHAINS + 1) * 1_000,
    async run(api: ReturnType<typeof createCyrnelApi>) {
      await api.post('/services', {
        id: 'upstream',
        adapter: 'openapi',
        definition: upstream.openapi,
        enabled: true,
      });
      const code = sequentialCallsProgram('upstream', 1_000);
      for (let i = 0; i <= CHAINS; i++) await api.run(code, 120_000);
    },
  };
  if (tracingOnly) {
    const collector = await startCollector(resources);
    parts.push(
      await profiledChain(
        resources,
        { ...openapiChain, title: `${openapiChain.title}, traced (--otel to a collector on loopback)` },
        { CYRNEL_OTEL: collector.url },
      ),
      `The collector received ${collector.spans()} spans.`,
    );
  }
  if (!printedOnly) {
    parts.push(
      await profiled(
        `${PROCESSES} sequential trivial processes (unit: one process)`,
        PROCESSES,
        async (api) => {
          for (let i = 0; i < PROCESSES; i++) await api.run(TRIVIAL);
          return undefined;
        },
      ),
    );
  }
  if (!tracingOnly) {
    parts.push(await profiledChain(resources, openapiChain));
    parts.push(await profiledChain(resources, mcpChainWork(CHAINS)));
  }
  if (!printedOnly) parts.push(await profiledChildren(PROCESSES));
} catch (error) {
  parts.push(`Could not profile: ${error instanceof Error ? error.message : error}`);
} finally {
  await resources.closeAll();
}
if (printedOnly) {
  process.stdout.write(`${parts.join('\n')}\n`);
  process.exit(0);
}
const KEPT = '<!-- profile.md: kept by pnpm profile from here on -->';
const target = new URL('../results/profile.md', import.meta.url);
const previous = await readFile(target, 'utf8').catch(() => '');
const kept = previous.includes(KEPT) ? previous.slice(previous.indexOf(KEPT)) : '';
const text = [...parts, ...(kept ? ['', kept] : [])].join('\n');
await writeFile(target, text);
process.stdout.write(`${text}\nwritten to bench/results/profile.md\n`);
process.exit(0);
