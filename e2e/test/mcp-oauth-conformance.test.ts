import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { freePort } from '../support/free-port';

// The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
// @cyrnel/adapter-mcp) runs its client `auth/*` scenarios through the server binary: for each, a
// service installed with an `oauth` block, its connection authorized (by a "person" following the
// suite's redirects to the server's `/oauth/callback`, or by a grant without one), its tools
// refreshed and `test-tool` called from a process (`conformance/host-client.ts`).
const CONFORMANCE = fileURLToPath(new URL('../../packages/adapter-mcp/conformance/', import.meta.url));
const EXPECTED_FAILURES = Object.keys(
  JSON.parse(readFileSync(join(CONFORMANCE, 'expected-failures.json'), 'utf8')) as Record<string, string>,
);
/** The client `auth/*` scenarios of the pinned suite (0.1.16). */
const AUTH_SCENARIOS = 22;
/** The client ID metadata document URL the suite's `auth/basic-cimd` expects. */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';
const API_KEY = 'conformance-key';
/** About 15 s; bounded by 22 scenarios of at most a minute each (run.mjs's client timeout). */
const RUN_TIMEOUT_MS = 25 * 60_000;

let work: string;
let cyrnel: CyrnelServer;

/** `node conformance/run.mjs` through the server: its exit code and stdout. */
function runConformance(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(CONFORMANCE, 'run.mjs')], {
      env: { ...process.env, CYRNEL_URL: cyrnel.url, CYRNEL_API_KEY: API_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-mcp-oauth-'));
  const port = await freePort();
  cyrnel = await startCyrnel(join(work, 'cyrnel'), { CYRNEL_API_KEY: API_KEY }, port, [
    '--public-url',
    `http://127.0.0.1:${port}`,
    '--oauth-client-metadata-url',
    CIMD_URL,
  ]);
});

afterAll(async () => {
  await cyrnel?.program.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the MCP conformance suite through the server', () => {
  it(
    'passes every client auth scenario but the expected failures',
    async () => {
      const { code, stdout, stderr } = await runConformance();
      const why = `${stdout}\n${stderr}\n--- server log (end) ---\n${cyrnel.program.output().slice(-6000)}`;
      expect(stdout).toContain(`client: the cyrnel server at ${cyrnel.url}`);
      const scenarios = stdout.split('\n').filter((line) => /^(PASS|FAIL|EXPECTED FAIL) auth\//.test(line));
      const passed = scenarios.filter((line) => line.startsWith('PASS auth/'));
      const expectedFailures = scenarios.filter((line) => line.startsWith('EXPECTED FAIL '));
      expect(scenarios, why).toHaveLength(AUTH_SCENARIOS);
      expect(passed, why).toHaveLength(AUTH_SCENARIOS - EXPECTED_FAILURES.length);
      expect(expectedFailures.map((line) => line.split(' ')[2]).sort()).toEqual(
        [...EXPECTED_FAILURES].sort(),
      );
      expect(stdout.trimEnd().split('\n').at(-1)).toBe(
        `${AUTH_SCENARIOS - EXPECTED_FAILURES.length} passed, ${EXPECTED_FAILURES.length} failed`,
      );
      expect(code, why).toBe(0);
    },
    RUN_TIMEOUT_MS,
  );
});
