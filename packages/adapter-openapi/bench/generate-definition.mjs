// Benchmark (not a test): generateDefinition time and peak memory on GitHub's REST description.
// Run after `pnpm build`: node --expose-gc bench/generate-definition.mjs
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { generateDefinition } from '../dist/index.js';

const require = createRequire(import.meta.url);
const text = readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8');
globalThis.gc?.();
const baseline = process.memoryUsage();
const baselineMaxRss = process.resourceUsage().maxRSS;

let peakHeap = 0;
const sampler = setInterval(() => {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
}, 5);

const times = [];
let definition;
for (let run = 0; run < 7; run++) {
  const start = performance.now();
  definition = generateDefinition(text);
  times.push(performance.now() - start);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  await new Promise((resolve) => setImmediate(resolve));
}
clearInterval(sampler);
times.sort((a, b) => a - b);
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
console.log(
  JSON.stringify(
    {
      document: `api.github.com.json (${mb(text.length)} MB)`,
      tools: definition.tools.length,
      definitionJsonMB: Number(mb(JSON.stringify(definition).length)),
      maxMs: Math.round(times.at(-1)),
      medianMs: Math.round(times[3]),
      minMs: Math.round(times[0]),
      heapBaselineMB: Number(mb(baseline.heapUsed)),
      heapPeakMB: Number(mb(peakHeap)),
      maxRssGrowthMB: Number(((process.resourceUsage().maxRSS - baselineMaxRss) / 1024).toFixed(1)),
      maxRssMB: Number((process.resourceUsage().maxRSS / 1024).toFixed(1)),
    },
    null,
    2,
  ),
);
