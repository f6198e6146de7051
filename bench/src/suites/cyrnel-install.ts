import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { procMemory } from '../cyrnel/proc-memory.ts';
import type { ServerProcess } from '../cyrnel/server-process.ts';
import { readGitHubDefinition } from '../github-definition.ts';
import { timeOnce } from '../harness/measure.ts';
import { summarize } from '../harness/stats.ts';
import type { SuiteContext } from './suite-context.ts';

/** Installs GitHub's REST description, several copies (tool search is timed in cyrnel-search.ts). */
export async function runCyrnelInstall(
  ctx: SuiteContext,
  api: CyrnelApi,
  server: ServerProcess,
): Promise<void> {
  const { config, report } = ctx;
  const definition = await readGitHubDefinition();
  const body = (id: string) => JSON.stringify({ id, adapter: 'openapi', definition });
  const hwmBefore = procMemory(server.pid)?.hwmMb ?? Number.NaN;
  const times: number[] = [];
  let tools = 0;
  let hwmAfterFirst = Number.NaN;
  for (let i = 0; i < config.githubCopies; i++) {
    if (times.reduce((a, b) => a + b, 0) > config.installBudgetMs) {
      report.note(
        `GitHub installs stopped after ${i} copies: the install time budget (${config.installBudgetMs / 1000} s) was spent`,
      );
      break;
    }
    ctx.log(`cyrnel: installing GitHub's description, copy ${i + 1} of ${config.githubCopies}`);
    const payload = body(`github${i}`);
    const { ms, value } = await timeOnce(() => api.post('/services', payload));
    times.push(ms);
    tools += Number((value as { toolCount?: number }).toolCount ?? 0);
    if (i === 0) hwmAfterFirst = procMemory(server.pid)?.hwmMb ?? Number.NaN;
  }
  const size = `${(definition.length / 2 ** 20).toFixed(1)} MiB, ${Math.round(tools / times.length)} tools`;
  const first = times[0] ?? Number.NaN;
  report.add({
    section: 'install',
    metric: `cyrnel: install GitHub REST description, first (${size})`,
    unit: 'ms',
    value: first,
    target: '≤ 700 ms',
    met: first <= 700,
    note: 'POST /services with the inline definition, on a server that has not parsed a definition this large before (cold JIT for the adapter), as an operator would',
  });
  if (times.length > 1) {
    report.add({
      section: 'install',
      metric: 'cyrnel: install GitHub REST description, later copies',
      unit: 'ms',
      stats: summarize(times.slice(1)),
      note: `${times.length - 1} more installs of the same text under other service ids`,
    });
  }
  report.add({
    section: 'install',
    metric: 'cyrnel: server peak RSS after the first GitHub install',
    unit: 'MB',
    value: hwmAfterFirst,
    note: `VmHWM of the server process (it was ${hwmBefore.toFixed(0)} MB before the install, after the earlier benchmarks)`,
  });
}
