import { readFileSync } from 'node:fs';
import { createCyrnelApi } from './cyrnel/cyrnel-api.ts';
import { startServerProcess } from './cyrnel/server-process.ts';
import { createResources } from './harness/resources.ts';
import { mcpChainWork } from './profile/mcp-chain.ts';
const resources = createResources();
const env: Record<string, string> = process.env.PROF ? { NODE_OPTIONS: '--cpu-prof --cpu-prof-dir=/tmp/prof' } : {};
const server = await startServerProcess(resources, env);
const api = createCyrnelApi(server.url);
const cpu = () => {
  const stat = readFileSync(`/proc/${server.pid}/task/${server.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) * 10;
};
const work = mcpChainWork(0);
await work.run(api); // install + warm-up chain
const c0 = cpu();
const t0 = performance.now();
const w = mcpChainWork(2);
const code = `const getSum = cyrnel.services.everything.tools.get_sum;
let sum = 0;
for (let i = 0; i < 1000; i++) {
  const text: string = await getSum.invoke({ a: i, b: 1 });
  sum += Number(/is (-?\\d+)\\.$/.exec(text)?.[1]);
}
cyrnel.output({ sum });`;
for (let i = 0; i < 3; i++) await api.run(code, 120_000);
console.log(`wall per 1000 ${((performance.now() - t0) / 3).toFixed(0)} ms; main CPU per call ${((cpu() - c0) / 3000).toFixed(3)} ms`);
void w;
await resources.closeAll();
