import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { freePort } from '../support/free-port';
import { answers, type Program, startProgram } from '../support/program';
import { brokenPromises, promisedOutput } from '../support/promised-output';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const run = promisify(execFile);

let work: string;
let upstream: Program;
let upstreamUrl: string;
let cyrnel: CyrnelServer;

async function example(file: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [join(EXAMPLES, file), ...args], {
    env: { ...process.env, CYRNEL_URL: cyrnel.url, UPSTREAM_URL: upstreamUrl },
    timeout: 30_000,
  });
  return stdout;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-examples-'));
  const port = await freePort();
  upstreamUrl = `http://127.0.0.1:${port}`;
  upstream = await startProgram({
    name: 'examples/upstream.mjs',
    command: process.execPath,
    args: [join(EXAMPLES, 'upstream.mjs')],
    env: { PORT: String(port) },
    ready: answers(`${upstreamUrl}/openapi.json`),
  });
  cyrnel = await startCyrnel(join(work, 'cyrnel'));
});

afterAll(async () => {
  await cyrnel?.program.stop();
  await upstream?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('examples/', () => {
  it('client-usage.mjs installs, configures, enables and runs two tools (twice: re-runnable)', async () => {
    // The lines its `// → ` comments show (the README shows them too).
    const promised = promisedOutput(await readFile(join(EXAMPLES, 'client-usage.mjs'), 'utf8'), '//');
    expect(promised).toEqual(['output: {"city":"Paris","summary":"sunny","fahrenheit":70.7}']);
    for (let round = 0; round < 2; round++) {
      const stdout = await example('client-usage.mjs');
      expect(brokenPromises(promised, stdout.split('\n'))).toEqual([]);
      expect(stdout).toContain('installed weather (2 tools, enabled: false)');
      expect(stdout).toContain("secrets set: [ '/apiKey' ]");
      expect(stdout).toContain('output: {"city":"Paris","summary":"sunny","fahrenheit":70.7}');
      expect(stdout).toMatch(/tool calls: getForecast ok \d+ms, celsiusToFahrenheit ok \d+ms/);
    }
  });

  it("agent-loop.mjs searches, reads the chosen tools' types and the docs, runs the written code and prints the result", async () => {
    const stdout = await example('agent-loop.mjs', 'What is the weather in Oslo, in Fahrenheit?');
    expect(stdout).toMatch(/search: .*weather\.getForecast/);
    expect(stdout).toMatch(/context: \d+ characters of types, \d+ of docs/);
    expect(stdout).toContain('result: {"answer":"Oslo: snow showers, 39.2°F"}');
  });

  it('upstream.mjs serves the walkthrough document pointing at itself', async () => {
    const document = (await (await fetch(`${upstreamUrl}/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    expect(document.servers).toEqual([{ url: upstreamUrl }]);
    const installed = await cyrnel.client.services.update('weather', { url: `${upstreamUrl}/openapi.json` });
    expect(installed).toMatchObject({ source: `${upstreamUrl}/openapi.json`, toolCount: 2 });
  });
});
