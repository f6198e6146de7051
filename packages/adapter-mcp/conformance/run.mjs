#!/usr/bin/env node
// Runs the MCP conformance suite's client `auth/*` scenarios against conformance/client.ts (the
// adapter's connection with its OAuth session) or, when CYRNEL_URL is set, against
// conformance/host-client.ts (a running cyrnel server doing the OAuth, driven over its HTTP API
// with CYRNEL_API_KEY): bundles the client with esbuild, then runs
// `conformance client --scenario <name> --command "node <client>.mjs"` once per scenario, one after
// the other, and prints which client, one line per scenario and a closing `N passed, N failed`.
//
//   node conformance/run.mjs                           # every auth scenario
//   node conformance/run.mjs auth/scope-step-up ...    # only these
//   CONFORMANCE_VERBOSE=1 node conformance/run.mjs X   # with the suite's checks and the client's output
//   CYRNEL_URL=http://127.0.0.1:9371 CYRNEL_API_KEY=… node conformance/run.mjs   # through a server
//
// Scenarios listed in expected-failures.json (name → why) may fail: they print EXPECTED and do
// not fail the run; one of them passing fails it (the list is stale). The closing line counts
// expected failures as failed.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const suite = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const out = join(here, '.build');
mkdirSync(out, { recursive: true });
const throughServer = Boolean(process.env.CYRNEL_URL);
const entry = throughServer ? 'host-client' : 'client';
// A scenario through a server also installs a service and starts a sandbox process.
const clientTimeoutMs = throughServer ? 60_000 : 30_000;

await build({
  entryPoints: [join(here, `${entry}.ts`)],
  outfile: join(out, `${entry}.mjs`),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  packages: 'external',
  logLevel: 'warning',
});

/** Every client scenario of the suite whose name starts with `auth/` (22 in 0.1.16). */
async function authScenarios() {
  const { stdout } = await run(process.execPath, [suite, 'list', '--client']);
  return [...stdout.matchAll(/^\s*- (auth\/\S+)/gm)].map((match) => match[1]);
}

function run(command, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const expected = JSON.parse(readFileSync(join(here, 'expected-failures.json'), 'utf8'));
const wanted = process.argv.slice(2);
const scenarios = wanted.length > 0 ? wanted : await authScenarios();
const client = `${process.execPath} ${join(out, `${entry}.mjs`)}`;
console.log(
  throughServer
    ? `client: the cyrnel server at ${process.env.CYRNEL_URL} (conformance/host-client.ts)`
    : "client: the adapter's connection (conformance/client.ts)",
);
let passed = 0;
let failed = 0;
let unexpected = 0;
for (const scenario of scenarios) {
  const { code, stdout, stderr } = await run(process.execPath, [
    suite,
    'client',
    '--command',
    client,
    '--scenario',
    scenario,
    '--timeout',
    String(clientTimeoutMs),
  ]);
  const text = `${stdout}\n${stderr}`;
  const summary = text.match(/Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/);
  const ok = code === 0;
  const why = expected[scenario];
  if (ok) passed++;
  else failed++;
  if (ok === (why !== undefined)) unexpected++;
  const verdict = ok
    ? why
      ? 'PASS (expected to fail: remove it from expected-failures.json)'
      : 'PASS'
    : why
      ? 'EXPECTED FAIL'
      : 'FAIL';
  console.log(
    `${verdict} ${scenario}${summary ? ` (${summary[1]}/${summary[2]} checks, ${summary[4]} warnings)` : ''}${why && !ok ? `: ${why}` : ''}`,
  );
  if (!ok || process.env.CONFORMANCE_VERBOSE) {
    const failures = text
      .split('\n')
      .filter((line) => /^\s+- |Error:|Warning:|failed:|CLIENT/.test(line) && !/^\s+- auth\//.test(line));
    for (const line of failures) console.log(`    ${line.trim()}`);
  }
  if (process.env.CONFORMANCE_VERBOSE) console.log(text);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(unexpected === 0 ? 0 : 1);
