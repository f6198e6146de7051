// Per-execution cost of the child-process pool against running the isolate in-process
// (same runner, same fresh context per execution). Build first, then: node --no-node-snapshot bench/overhead.mjs
import { createIsolateRunner, createTypescriptEnvironment } from '../dist/index.js';

const N = Number(process.env.N ?? 300);
const cases = {
  'empty program': '',
  'output({a:1})': 'cyrnel.output({ a: 1 });',
  '1 tool call + output': 'cyrnel.output({ r: await cyrnel.services.s.tools.echo.invoke({ x: 1 }) });',
  '10 tool calls': 'for (let i = 0; i < 10; i++) await cyrnel.services.s.tools.echo.invoke({ i });',
  '100 console lines': "for (let i = 0; i < 100; i++) console.log('line', i);",
  '1 MB output': "cyrnel.output({ big: 'x'.repeat(1 << 20) });",
};
const limits = {
  timeoutMs: 10_000,
  stdoutCapBytes: 1 << 20,
  stderrCapBytes: 1 << 20,
  outputCapBytes: 4 << 20,
};

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5).toFixed(3), p95: at(0.95).toFixed(3) };
}

async function time(fn) {
  for (let i = 0; i < 20; i++) await fn();
  const samples = [];
  for (let i = 0; i < N; i++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return stats(samples);
}

const runner = createIsolateRunner({ memoryLimitMb: 128 });
const hooks = { call: async (_kind, args) => args[2], write() {}, output: (json) => JSON.parse(json) };

const env = createTypescriptEnvironment();
await env.setup({
  config: { poolSize: 1 },
  secrets: {},
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  bindings: {
    invokeTool: async (_eid, input) => input.parameters,
    discoverServices: async () => [],
    discoverTools: async () => [],
    describeTool: async () => ({}),
    setState() {},
    emitStdout() {},
    emitStderr() {},
    emitOutput() {},
    setError(_eid, message) {
      throw new Error(message);
    },
  },
});

const rows = [];
let eid = 1;
for (const [name, code] of Object.entries(cases)) {
  const inProcess = await time(() => runner.run({ code, ...limits }, hooks));
  const pooled = await time(() =>
    env.execute({ eid: eid++, code, options: { timeoutMs: 10_000 }, envConfig: {} }),
  );
  rows.push({
    case: name,
    'in-process median ms': inProcess.median,
    'child pool median ms': pooled.median,
    'overhead ms': (pooled.median - inProcess.median).toFixed(3),
    'in-process p95': inProcess.p95,
    'child pool p95': pooled.p95,
  });
}
console.table(rows);
runner.dispose();
await env.teardown();
