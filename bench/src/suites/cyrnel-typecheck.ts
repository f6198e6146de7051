import { performance } from 'node:perf_hooks';
import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { createTypecheckFloor } from '../floors/typecheck-floor.ts';
import { percentile, summarize } from '../harness/stats.ts';
import type { SuiteContext } from './suite-context.ts';

/** Tools the measured program calls: the most an agent's program is expected to use. */
const TOOLS = 50;
const TARGET_P95_MS = 100;

/**
 * A program calling `tools` of `service`, each result read; `run` makes every text new, so each
 * check parses and checks it again (a check of the same text would answer from the last one).
 */
function program(service: string, tools: readonly string[], run: number): string {
  const lines = tools.map(
    (tool, i) =>
      `const r${i} = await cyrnel.services.${service}.tools.${tool}.invoke({} as never);\nconsole.log(r${i}.status);`,
  );
  return `// run ${run}\n${lines.join('\n')}\ncyrnel.output({ done: true });\n`;
}

/**
 * `POST /processes {check: true}` for a program calling 50 of GitHub's tools, against its floor:
 * TypeScript's warm language service checking the same program against the same declarations in
 * this process. Needs the first GitHub copy (`github0`) of the install part.
 */
export async function runCyrnelTypeCheck(ctx: SuiteContext, api: CyrnelApi): Promise<void> {
  const service = 'github0';
  await api.post(`/services/${service}/enabled`, { enabled: true });
  try {
    ctx.log(`cyrnel: type-checking a program calling ${TOOLS} of GitHub's tools`);
    const page = (await api.get(`/tools?serviceId=${service}&limit=${TOOLS}`)) as { items: { id: string }[] };
    const tools = page.items.map((tool) => tool.id);
    if (tools.length < TOOLS) throw new Error(`${service} has only ${tools.length} tools`);
    const names = tools.map((tool) => `${service}.${tool}`).join(',');
    const declarations = await (await fetch(`${api.url}/environment/types?tools=${names}`)).text();
    const floor = createTypecheckFloor(declarations);
    const check = async (run: number) => {
      const answer = (await api.post('/processes', { code: program(service, tools, run), check: true })) as {
        diagnostics: unknown[];
      };
      if (answer.diagnostics.length > 0)
        throw new Error(`the program has type errors: ${JSON.stringify(answer.diagnostics[0])}`);
    };
    const reps = ctx.config.mode === 'quick' ? 50 : 300;
    const warmup = ctx.config.mode === 'quick' ? 10 : 30;
    const samples: number[] = [];
    const floors: number[] = [];
    for (let run = 0; run < warmup; run++) {
      await check(run);
      floor.check(program(service, tools, run));
    }
    // Alternating, so a noisy minute weighs on both alike.
    for (let run = warmup; run < warmup + reps; run++) {
      let start = performance.now();
      await check(run);
      samples.push(performance.now() - start);
      start = performance.now();
      const errors = floor.check(program(service, tools, run));
      floors.push(performance.now() - start);
      if (errors > 0) throw new Error('the floor found type errors in the program');
    }
    const stats = summarize(samples);
    const p95 = percentile(
      [...samples].sort((a, b) => a - b),
      95,
    );
    const floorStats = summarize(floors);
    const floorP95 = percentile(
      [...floors].sort((a, b) => a - b),
      95,
    );
    ctx.report.add({
      section: 'types',
      metric: 'floor: TypeScript language service, same program and declarations',
      unit: 'ms',
      stats: floorStats,
      note: `in-process, warm, no HTTP or worker; p95 ${floorP95.toFixed(1)} ms`,
    });
    ctx.report.add({
      section: 'types',
      metric: `cyrnel: type check of a program calling ${TOOLS} tools (POST /processes, check)`,
      unit: 'ms',
      stats,
      baseline: { label: 'TypeScript language service', value: floorStats.p50 },
      ratio: stats.p50 / floorStats.p50,
      target: `p95 ≤ ${TARGET_P95_MS} ms`,
      met: p95 <= TARGET_P95_MS,
      note: `p95 ${p95.toFixed(1)} ms (floor p95 ${floorP95.toFixed(1)} ms); ${TOOLS} of GitHub's tools, declarations ${Math.round(Buffer.byteLength(declarations) / 1024)} KiB; each check a new text, tools found in it, resolved and declared, checked in the worker`,
    });
  } finally {
    await api.post(`/services/${service}/enabled`, { enabled: false });
  }
}
