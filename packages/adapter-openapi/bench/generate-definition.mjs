// Benchmark (not a test): generateDefinition time and memory on GitHub's REST description.
// Run after `pnpm build`: node --expose-gc bench/generate-definition.mjs
//
// generateDefinition is synchronous, so nothing can sample the heap while it runs (a timer never fires
// inside the call). The true peak is the process's peak RSS, which the kernel records; the heap is
// measured right after each call (before any collection: a lower bound of the peak) and, with
// --expose-gc, after a collection with one definition alive (what the definition keeps).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { generateDefinition } from '../dist/index.js';

const require = createRequire(import.meta.url);
const text = readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8');
const gc = globalThis.gc ?? (() => {});
gc();
const baselineHeap = process.memoryUsage().heapUsed;
const baselineMaxRss = process.resourceUsage().maxRSS; // kilobytes, a high-water mark

const times = [];
let definition;
let heapAfterCall = 0;
for (let run = 0; run < 7; run++) {
  definition = undefined;
  gc();
  const start = performance.now();
  definition = generateDefinition(text);
  times.push(performance.now() - start);
  heapAfterCall = Math.max(heapAfterCall, process.memoryUsage().heapUsed);
}
gc();
const retainedHeap = process.memoryUsage().heapUsed;
const maxRss = process.resourceUsage().maxRSS;
times.sort((a, b) => a - b);
const mb = (bytes) => Number((bytes / 1024 / 1024).toFixed(1));
console.log(
  JSON.stringify(
    {
      document: `api.github.com.json (${mb(text.length)} MB)`,
      tools: definition.tools.length,
      definitionJsonMB: mb(JSON.stringify(definition).length),
      maxMs: Math.round(times.at(-1)),
      medianMs: Math.round(times[3]),
      minMs: Math.round(times[0]),
      gcExposed: globalThis.gc !== undefined,
      heapBaselineMB: mb(baselineHeap),
      heapAfterCallMaxMB: mb(heapAfterCall),
      heapRetainedMB: mb(retainedHeap),
      maxRssMB: mb(maxRss * 1024),
      maxRssGrowthMB: mb((maxRss - baselineMaxRss) * 1024),
    },
    null,
    2,
  ),
);
