// Entry point of `pnpm bench` (`--quick` for the reduced CI run). Measures, prints a table,
// writes results/latest.json and latest.md (quick.json and quick.md in `--quick`, so a CI or
// local check never overwrites the recorded full run). A part that cannot run is reported with its
// reason instead of stopping the run. No timing ever fails it: the full run always exits 0, and so
// does a run whose time budget ran out (it reports the rows it reached, with a warning); the quick
// run exits 1 when one of cyrnel's own parts could not run, so CI notices benchmark code that has
// rotted (the peer is a third-party program: its failure is reported, not fatal).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchConfig } from './bench-config.ts';
import { exitCode } from './harness/exit-code.ts';
import { markdownReport, textTable } from './harness/format-table.ts';
import { machineInfo } from './harness/machine-info.ts';
import { replaceReadmeSection } from './harness/readme-section.ts';
import { createReport } from './harness/report.ts';
import { createResources } from './harness/resources.ts';
import { runCyrnelHosts } from './suites/cyrnel-hosts.ts';
import { postgresSearchDatabase, runCyrnelSearch } from './suites/cyrnel-search.ts';
import {
  runCyrnel,
  runCyrnelIdleOnly,
  runCyrnelToolCallsOnly,
  runCyrnelTrivialOnly,
} from './suites/cyrnel-suite.ts';
import { runCyrnelTracingCost } from './suites/cyrnel-tracing.ts';
import { runFetchFloors, runLatencyFloors, runThroughputFloor } from './suites/floor-suite.ts';
import { runPeer, runPeerTrivial } from './suites/peer-suite.ts';
import { SECTIONS, type SuiteContext } from './suites/suite-context.ts';
import { startUpstream } from './upstream.ts';

const PEER_SECTION = 'peer (@utcp/code-mode)';
const started = Date.now();
const machine = machineInfo();
const config = benchConfig(process.argv.slice(2));
// `--results-dir <dir>`: where the results go instead of results/ (the bench's own tests use it).
const resultsArg = process.argv.indexOf('--results-dir');
const report = createReport();
const resources = createResources();
const log = (text: string) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1)}s] ${text}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    resources.closeAll().finally(() => process.exit(130));
  });
}

// Whatever happens, the run ends with its results written. A run out of time is not a failure:
// it stops where it is and reports what it reached, with a warning (exit code: see exitCode).
const watchdog = setTimeout(() => {
  const warning = `the time budget of ${config.watchdogMs / 1000} s ran out: the run was cut short, the rows are those it reached; the part running then and those after it did not finish`;
  log(`warning: ${warning}`);
  report.cut(warning);
  report.note(`warning: ${warning}`);
  resources
    .closeAll()
    .then(finishOnce)
    .finally(() => process.exit(runExitCode()));
}, config.watchdogMs);
watchdog.unref();

async function part(section: string, fn: () => Promise<void>): Promise<void> {
  // Out of time: what is left is not started (the warning says so).
  if (report.cutReason !== undefined) return;
  try {
    await fn();
  } catch (error) {
    const why = report.cutReason === undefined ? 'could not run' : 'cut short by the time budget';
    log(`${section}: ${why}: ${error instanceof Error ? error.message : error}`);
    report.skip(section, error);
  }
}

async function main(): Promise<void> {
  log(`mode ${config.mode}`);
  const upstream = await startUpstream();
  resources.defer(() => upstream.close());
  const ctx: SuiteContext = { config, report, resources, upstream, log };
  if (config.only === 'tool-calls') {
    await part('floors: fetch', () => runFetchFloors(ctx));
    await part('cyrnel: tool calls', () => runCyrnelToolCallsOnly(ctx));
    await part('cyrnel: tracing', () => runCyrnelTracingCost(ctx));
    return;
  }
  if (config.only === 'tracing') {
    await part('cyrnel: tracing', () => runCyrnelTracingCost(ctx));
    return;
  }
  if (config.only === 'idle-rss') {
    await part('cyrnel: idle memory', () => runCyrnelIdleOnly(ctx));
    return;
  }
  if (config.only === 'trivial') {
    await part('floors: process latency', () => runLatencyFloors(ctx));
    await part('floors: throughput', () => runThroughputFloor(ctx));
    await part(PEER_SECTION, () => runPeerTrivial(ctx));
    await part('cyrnel: trivial process', () => runCyrnelTrivialOnly(ctx));
    return;
  }
  await part('floors: process latency', () => runLatencyFloors(ctx));
  await part('floors: fetch', () => runFetchFloors(ctx));
  await part('floors: throughput', () => runThroughputFloor(ctx));
  await part(PEER_SECTION, () => runPeer(ctx));
  await part('cyrnel', () => runCyrnel(ctx));
  // Two more servers and a dozen chains: left out of the quick run (its budget), `--only tracing` runs it.
  if (config.mode !== 'quick') await part('cyrnel: tracing', () => runCyrnelTracingCost(ctx));
  await part('cyrnel: tool search', () => runCyrnelSearch(ctx));
  await part('cyrnel: several hosts on PostgreSQL', () => runCyrnelHosts(ctx));
  await part('cyrnel: tool search on PostgreSQL', async () =>
    runCyrnelSearch(ctx, await postgresSearchDatabase()),
  );
}

/** 1 when the quick run could not run a part of cyrnel's own (the peer's failures are the peer's). */
function runExitCode(): number {
  return exitCode(config.mode, report, [PEER_SECTION]);
}

// The watchdog and the end of `main` may both finish the run: the results are written once.
let finishing: Promise<void> | undefined;
function finishOnce(): Promise<void> {
  finishing ??= finish().catch((error: unknown) => {
    log(`could not write results: ${error}`);
  });
  return finishing;
}

async function finish(): Promise<void> {
  const order = (section: string) => SECTIONS.indexOf(section as (typeof SECTIONS)[number]);
  report.rows.sort((x, y) => order(x.section) - order(y.section));
  const mode = `${config.mode} (${((Date.now() - started) / 1000).toFixed(0)} s)`;
  const dir =
    resultsArg >= 0
      ? pathToFileURL(`${resolve(process.argv[resultsArg + 1] as string)}/`)
      : new URL('../results/', import.meta.url);
  await mkdir(dir, { recursive: true });
  const json = {
    mode: config.mode,
    machine,
    config,
    rows: report.rows,
    notes: report.notes,
    skips: report.skips,
    ...(report.cutReason === undefined ? {} : { cut: report.cutReason, unfinished: report.unfinished }),
  };
  const name = config.only ?? (config.mode === 'quick' ? 'quick' : 'latest');
  await writeFile(new URL(`${name}.json`, dir), `${JSON.stringify(json, null, 2)}\n`);
  const markdown = markdownReport(report, machine, mode);
  await writeFile(new URL(`${name}.md`, dir), markdown);
  if (config.mode !== 'quick' && !config.only) {
    // The root README shows the latest full run; a missing or unmarked README is only reported.
    const readme = new URL('../../README.md', import.meta.url);
    try {
      await writeFile(readme, replaceReadmeSection(await readFile(readme, 'utf8'), markdown));
      process.stdout.write('README.md: Benchmarks table updated\n');
    } catch (error) {
      log(`README.md not updated: ${error instanceof Error ? error.message : error}`);
    }
  }
  process.stdout.write(`\n${textTable(report.rows)}\n\n`);
  for (const note of report.notes) process.stdout.write(`note: ${note}\n`);
  for (const skip of report.skips) process.stdout.write(`could not run: ${skip.section}: ${skip.reason}\n`);
  for (const cut of report.unfinished) process.stdout.write(`cut short: ${cut.section}: ${cut.reason}\n`);
  process.stdout.write(`\nresults written to ${fileURLToPath(dir)}${name}.json and ${name}.md (${mode})\n`);
}

try {
  await main();
} catch (error) {
  report.skip('bench', error);
} finally {
  await resources.closeAll();
  clearTimeout(watchdog);
  await finishOnce();
}
process.exit(runExitCode());
