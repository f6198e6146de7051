import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { freePort } from '../support/free-port';
import { answers, type Program, startProgram } from '../support/program';
import { brokenPromises, promisedOutput } from '../support/promised-output';

// The root README's walkthrough is examples/walkthrough.sh (curl) and an excerpt of
// examples/client-usage.mjs (client): this file proves the README shows only their lines and
// runs the script against the built binary, so the documented commands are the tested ones.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'examples', 'walkthrough.sh');
const API_KEY = 'walkthrough-key';
const run = promisify(execFile);

let work: string;
let upstream: Program;
let upstreamUrl: string;
let cyrnel: CyrnelServer;
let client: CyrnelClient;

/** The fenced blocks of a Markdown text with the given info string. */
function fencedBlocks(markdown: string, info: string): string[][] {
  const blocks: string[][] = [];
  let current: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (current === undefined && line === `\`\`\`${info}`) current = [];
    else if (current !== undefined && line === '```') {
      blocks.push(current);
      current = undefined;
    } else current?.push(line);
  }
  return blocks;
}

/** The lines of `shown` (blank ones aside) that are not found in `source` in the same order. */
function linesNotInOrder(shown: readonly string[], source: string): string[] {
  const lines = source.split('\n');
  let at = 0;
  const missing: string[] = [];
  for (const line of shown) {
    if (line.trim() === '') continue;
    const found = lines.indexOf(line, at);
    if (found === -1) missing.push(line);
    else at = found + 1;
  }
  return missing;
}

async function walkthrough(...args: string[]): Promise<string[]> {
  const { stdout } = await run('bash', [SCRIPT, ...args], {
    cwd: ROOT,
    env: { ...process.env, CYRNEL_URL: cyrnel.url, UPSTREAM_URL: upstreamUrl, CYRNEL_API_KEY: API_KEY },
    timeout: 30_000,
  });
  return stdout.trimEnd().split('\n');
}

beforeAll(async () => {
  if (spawnSync('jq', ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('the curl walkthrough (examples/walkthrough.sh) needs jq: apt-get install jq');
  }
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-walkthrough-'));
  const port = await freePort();
  upstreamUrl = `http://127.0.0.1:${port}`;
  upstream = await startProgram({
    name: 'examples/upstream.mjs',
    command: process.execPath,
    args: [join(ROOT, 'examples', 'upstream.mjs')],
    env: { PORT: String(port) },
    ready: answers(`${upstreamUrl}/openapi.json`),
  });
  // With an API key, so the script's key handling runs too.
  cyrnel = await startCyrnel(join(work, 'cyrnel'), { CYRNEL_API_KEY: API_KEY });
  client = createClient({ baseUrl: cyrnel.url, apiKey: API_KEY });
});

afterAll(async () => {
  await cyrnel?.program.stop();
  await upstream?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the README walkthrough', () => {
  it('shows only lines of examples/walkthrough.sh and examples/client-usage.mjs, in order', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const [curl, ...otherCurl] = fencedBlocks(readme, 'sh').filter((block) =>
      block.some((line) => line.includes('"$CYRNEL/processes"')),
    );
    const [js, ...otherJs] = fencedBlocks(readme, 'js').filter((block) =>
      block.some((line) => line.includes('client.processes.run(')),
    );
    expect([otherCurl, otherJs]).toEqual([[], []]);
    // Not vacuous: the blocks hold the whole tour.
    expect(curl?.length).toBeGreaterThan(40);
    expect(js?.length).toBeGreaterThan(30);
    expect(linesNotInOrder(curl ?? [], await readFile(SCRIPT, 'utf8'))).toEqual([]);
    // The README imports the published name; the example imports the repository's build.
    const published = (js ?? []).map((line) =>
      line.replace("from '@cyrnel/client';", "from '../packages/client/dist/index.js';"),
    );
    const usage = await readFile(join(ROOT, 'examples', 'client-usage.mjs'), 'utf8');
    expect(linesNotInOrder(published, usage)).toEqual([]);
  });

  it('marks every comment that shows output, which is what the script prints', async () => {
    const script = await readFile(SCRIPT, 'utf8');
    const promised = promisedOutput(script, '#');
    // Not vacuous: each step shows what it prints.
    expect(promised.length).toBeGreaterThanOrEqual(13);
    // A comment that looks like output (JSON, an SSE line, an elided excerpt) without the arrow
    // would not be compared with anything.
    expect(script.split('\n').filter((line) => /^# +([[{"]|event:|\.\.\.)/.test(line))).toEqual([]);
  });

  it('runs the curl walkthrough from the URL and prints exactly what its comments show', async () => {
    // Another process first: the script must use the id it was given, not assume 1.
    const earlier = await client.processes.run('cyrnel.output({ earlier: true })', { throwOnFailure: true });
    const stdout = await walkthrough();

    // Every line it prints is shown by a `# → ` comment, in order, and nothing else.
    expect(stdout).toEqual(promisedOutput(await readFile(SCRIPT, 'utf8'), '#'));

    const [latest] = (await client.processes.list({ limit: 1 })).items;
    expect(latest?.id).toBeGreaterThan(earlier.id);
    expect(latest).toMatchObject({ exitState: 'success' });
    expect(await client.processes.output(latest?.id ?? 0)).toEqual({ city: 'Lima', fahrenheit: 64.4 });
    expect(await client.services.get('weather')).toMatchObject({
      enabled: true,
      source: `${upstreamUrl}/openapi.json`,
    });
  });

  it('runs it again installing from the file, replacing the earlier service', async () => {
    const before = (await client.processes.list({ limit: 1 })).items[0]?.id ?? 0;
    const stdout = await walkthrough('examples/weather.openapi.json');
    expect(stdout).toEqual(promisedOutput(await readFile(SCRIPT, 'utf8'), '#'));
    expect((await client.processes.list({ limit: 1 })).items[0]?.id).toBeGreaterThan(before);
    const service = await client.services.get('weather');
    expect(service.source).not.toBe(`${upstreamUrl}/openapi.json`);
    expect(await client.services.getConfig('weather')).toEqual({
      config: expect.objectContaining({ baseUrl: upstreamUrl }),
    });
    expect(await client.services.getSecrets('weather')).toEqual({ present: ['/apiKey'] });
  });

  it('reaches the same result through MCP (examples/mcp-walkthrough.mjs, the official MCP client)', async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'examples', 'mcp-walkthrough.mjs')], {
      cwd: ROOT,
      env: { ...process.env, CYRNEL_URL: cyrnel.url, CYRNEL_API_KEY: API_KEY },
      timeout: 30_000,
    });
    const promised = promisedOutput(
      await readFile(join(ROOT, 'examples', 'mcp-walkthrough.mjs'), 'utf8'),
      '//',
    );
    expect(promised).toHaveLength(3);
    expect(brokenPromises(promised, stdout.split('\n'))).toEqual([]);
  });
});
