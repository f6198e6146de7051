import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { listToolsOverStdio } from '../support/mcp-stdio';
import { ROOT, userEnv } from '../support/packed';
import { answers, type Program, startProgram } from '../support/program';
import {
  brokenLines,
  linesNotInOrder,
  Markdown,
  missingLines,
  type NumberedLine,
  numberedPromises,
} from '../support/readme';

// A newcomer's path through the root README, in its order, on a copy of the repository as a
// newcomer gets it (nothing installed, nothing built): the quick start's server command, the
// walkthrough's second terminal (the upstream, then the curl walkthrough from the URL and from the
// file), the client walkthrough and the agent loop, the MCP walkthrough and the Claude Desktop
// bridge, then a module scaffolded, installed and invoked as the SDK README's module guide says.
// Every command is taken from the README (or the guide), not written here, and a failure names the
// line that stopped being true. The steps share the copy and the running server, so they run in
// order; a step fails when one before it did.
const run = promisify(execFile);
const API_KEY = 'newcomer-key';

let readme: Markdown;
let copy: string;
let work: string;
let server: Program | undefined;
let upstream: Program | undefined;
let url = '';
let upstreamUrl = '';
let client: CyrnelClient;

/** The environment a newcomer's shell has, with the server's and upstream's addresses. */
function shellEnv(): NodeJS.ProcessEnv {
  return { ...userEnv(), CYRNEL_URL: url, UPSTREAM_URL: upstreamUrl, CYRNEL_API_KEY: API_KEY, KEY: API_KEY };
}

/** A README line (or several) run with bash in `cwd` as a newcomer types them; answers stdout. */
async function bash(doc: Markdown, lines: readonly NumberedLine[], cwd: string, timeoutMs = 60_000) {
  const script = lines.map((line) => line.text).join('\n');
  const { stdout } = await run('bash', ['-c', script], {
    cwd,
    env: shellEnv(),
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: Error & { stdout?: string; stderr?: string }) => {
    throw new Error(
      `${lines.map((line) => doc.where(line)).join('\n')}\nfailed: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
  });
  return stdout;
}

/**
 * A README's server command (`bash scripts/serve.sh …`) started in the copy on a free port (its
 * variable, CYRNEL_PORT, with `env`'s other flag variables): resolves once it answers and printed
 * its listening line, with its URL.
 */
async function serve(line: NumberedLine, env: Record<string, string>) {
  const port = await freePort();
  const address = `http://127.0.0.1:${port}`;
  const program = await startProgram({
    name: readme.where(line),
    command: 'bash',
    args: ['-c', `exec ${line.text}`],
    cwd: copy,
    env: { ...(userEnv() as Record<string, string>), ...env, CYRNEL_PORT: String(port) },
    // A copy with nothing installed: serve.sh installs and builds first (about 20 s warm).
    startTimeoutMs: 600_000,
    ready: answers(`${address}/health`),
  });
  const listening = program.output().match(/^\{.*"msg":"listening".*\}$/m);
  expect(
    listening && JSON.parse(listening[0]),
    `${readme.where(line)} prints its listening line`,
  ).toMatchObject({
    url: address,
  });
  return { program, url: address };
}

beforeAll(async () => {
  for (const tool of ['git', 'curl', 'jq']) {
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0) {
      throw new Error(`the newcomer's path needs ${tool}: apt-get install ${tool}`);
    }
  }
  readme = await Markdown.read(ROOT, 'README.md');
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-newcomer-'));
  copy = join(work, 'cyrnel');
});

afterAll(async () => {
  await upstream?.stop();
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("a newcomer's path through the README", { timeout: 600_000 }, () => {
  it('starts from a copy of the repository: its files, nothing installed or built', async () => {
    // As .ci/run copies the checkout: a clone, with what is not committed yet laid over it.
    await run('git', ['clone', '--quiet', ROOT, copy], { timeout: 120_000 });
    await run(
      'bash',
      [
        '-c',
        'git ls-files -z --modified --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$0"',
        copy,
      ],
      { cwd: ROOT, timeout: 120_000 },
    );
    expect(spawnSync('test', ['-e', join(copy, 'node_modules')]).status).not.toBe(0);
    expect(spawnSync('test', ['-e', join(copy, 'apps/server/dist')]).status).not.toBe(0);
  });

  it("runs the quick start's server command: /health and the admin UI answer", async () => {
    const block = readme.block('sh', (text) => text === 'bash scripts/serve.sh', 'the quick start');
    expect(block.lines.map((line) => line.text)).toEqual(['bash scripts/serve.sh']);
    const [command] = block.lines as [NumberedLine];
    // Its defaults (port 9371, ~/.cyrnel) belong to the machine's user: the flags' variables
    // give this run its own.
    const started = await serve(command, { CYRNEL_DATA_DIR: join(work, 'quick-start') });
    server = started.program;
    expect(await (await fetch(`${started.url}/health`)).json()).toEqual({ status: 'ok' });
    const ui = await fetch(`${started.url}/ui/`);
    expect(ui.status, `${readme.where(command)}: the admin UI at /ui/`).toBe(200);
    await ui.body?.cancel();
    expect(await server.stop(), `${readme.where(command)} stops on SIGTERM`).toBe(0);
    server = undefined;

    // The other quick-start command runs the whole suite, this test included: .ci/run runs it
    // verbatim on a copy, so here it is only checked to be that line.
    const tests = readme.block('sh', (text) => text.startsWith('bash scripts/test.sh'), 'the test command');
    const ci = await readFile(join(ROOT, '.ci/run'), 'utf8');
    for (const line of tests.lines) {
      expect(ci, `${readme.where(line)} is what .ci/run runs`).toContain(
        `bash ${line.text.slice('bash '.length)}`,
      );
    }
  });

  it("runs the walkthrough's server and second terminal: the curl walkthrough prints what its `# →` lines say", async () => {
    const command = readme.line(
      (text) => text.startsWith('bash scripts/serve.sh --allow-private-urls'),
      'the walkthrough server',
    ).text;
    const line = readme.line((text) => text === command, 'the walkthrough server');
    // `--data-dir /tmp/cyrnel-demo` becomes a folder of this run; with an API key, so the
    // commands' key handling runs too.
    const own = { ...line, text: line.text.replace(/--data-dir \S+/, `--data-dir ${join(work, 'demo')}`) };
    expect(own.text, `${readme.where(line)} names a data directory`).not.toBe(line.text);
    const started = await serve(own, { CYRNEL_API_KEY: API_KEY });
    server = started.program;
    url = started.url;
    client = createClient({ baseUrl: url, apiKey: API_KEY });

    const terminal = readme.block(
      'sh',
      (text) => text.startsWith('node examples/upstream.mjs &'),
      'the second terminal',
    );
    const background = terminal.lines.filter((entry) => entry.text.trimEnd().endsWith('&'));
    const foreground = terminal.lines.filter((entry) => !entry.text.trimEnd().endsWith('&'));
    expect(background).toHaveLength(1);
    const [upstreamLine] = background as [NumberedLine];
    // The upstream's port is free on this machine, not 8787 (its PORT variable).
    const port = await freePort();
    upstreamUrl = `http://127.0.0.1:${port}`;
    upstream = await startProgram({
      name: readme.where(upstreamLine),
      command: 'bash',
      args: ['-c', `exec ${upstreamLine.text.trimEnd().replace(/&$/, '')}`],
      cwd: copy,
      env: { PORT: String(port) },
      ready: answers(`${upstreamUrl}/openapi.json`),
    });

    // The curl walkthrough is examples/walkthrough.sh: the README shows only its lines, in order,
    // and every comment there that looks like output carries the arrow (so it is compared).
    const curl = readme.block('sh', (text) => text.includes('"$CYRNEL/processes"'), 'the curl walkthrough');
    expect(curl.lines.length).toBeGreaterThan(40);
    const script = await readFile(join(copy, 'examples', 'walkthrough.sh'), 'utf8');
    expect(
      linesNotInOrder(
        curl.lines.map((entry) => entry.text),
        script,
      ),
    ).toEqual([]);
    expect(script.split('\n').filter((text) => /^# +([[{"]|event:|\.\.\.)/.test(text))).toEqual([]);
    const promised = numberedPromises(curl, '#');
    expect(promised.length).toBeGreaterThanOrEqual(13);
    // The script's promises are the README's (none left out of the excerpt).
    expect(script.split('\n').filter((text) => text.startsWith('# → '))).toEqual(
      promised.map((promise) => `# → ${promise.text}`),
    );

    // Another process first: the walkthrough must use the id it was given, not assume 1.
    const earlier = await client.processes.run('cyrnel.output({ earlier: true })', { throwOnFailure: true });
    // Each walkthrough line after the shell's set-up (the toolchain's `eval`), run in turn: from
    // the URL, then from the file; each prints exactly what the `# →` lines show.
    const setup = foreground.filter((entry) => entry.text.startsWith('eval '));
    const runs = foreground.filter((entry) => !entry.text.startsWith('eval '));
    expect(runs.map((entry) => entry.text.replace(/\s+#.*$/, ''))).toEqual([
      'bash examples/walkthrough.sh',
      'bash examples/walkthrough.sh examples/weather.openapi.json',
    ]);
    const [fromUrl, fromFile] = runs as [NumberedLine, NumberedLine];
    let printed = (await bash(readme, [...setup, fromUrl], copy)).trimEnd().split('\n');
    expect(brokenLines('README.md', promised, printed), readme.where(fromUrl)).toEqual([]);
    const [first] = (await client.processes.list({ limit: 1 })).items;
    expect(first?.id).toBeGreaterThan(earlier.id);
    expect(first).toMatchObject({ exitState: 'success' });
    expect(await client.processes.output(first?.id ?? 0)).toEqual({ city: 'Lima', fahrenheit: 64.4 });
    expect(await client.services.get('weather')).toMatchObject({
      enabled: true,
      source: `${upstreamUrl}/openapi.json`,
    });

    printed = (await bash(readme, [...setup, fromFile], copy)).trimEnd().split('\n');
    expect(brokenLines('README.md', promised, printed), readme.where(fromFile)).toEqual([]);
    const [latest] = (await client.processes.list({ limit: 1 })).items;
    expect(latest?.id).toBeGreaterThan(first?.id ?? 0);
    expect(latest).toMatchObject({ exitState: 'success' });
    expect(await client.processes.output(latest?.id ?? 0)).toEqual({ city: 'Lima', fahrenheit: 64.4 });
    // The second run installed from the file, replacing the service the first installed from the URL.
    const service = await client.services.get('weather');
    expect(service).toMatchObject({ enabled: true });
    expect(service.source).not.toBe(`${upstreamUrl}/openapi.json`);
    expect(await client.services.getConfig('weather')).toEqual({
      config: expect.objectContaining({ baseUrl: upstreamUrl }),
    });
    expect(await client.services.getSecrets('weather')).toEqual({ present: ['/apiKey'] });
  });

  it('runs the client walkthrough and the agent loop as the README gives them', async () => {
    const js = readme.block('js', (text) => text.includes('client.processes.run('), 'the client walkthrough');
    expect(js.lines.length).toBeGreaterThan(30);
    // The README imports the published name; the example imports the repository's build.
    const published = js.lines.map((line) =>
      line.text.replace("from '@cyrnel/client';", "from '../packages/client/dist/index.js';"),
    );
    const usage = await readFile(join(copy, 'examples', 'client-usage.mjs'), 'utf8');
    expect(linesNotInOrder(published, usage)).toEqual([]);
    const promised = numberedPromises(js, '//');
    expect(promised.map((promise) => promise.text)).toEqual([
      'output: {"city":"Paris","summary":"sunny","fahrenheit":70.7}',
    ]);

    const command = readme.line(
      (text) => text.includes('`node examples/client-usage.mjs`'),
      'the client command',
    );
    const [, line] = command.text.match(/`(node examples\/client-usage\.mjs)`/) ?? [];
    // Twice: it is re-runnable (it installs over the walkthrough's service).
    for (let round = 0; round < 2; round++) {
      const stdout = await bash(readme, [{ ...command, text: line ?? '' }], copy);
      expect(missingLines('README.md', promised, stdout.split('\n'))).toEqual([]);
      expect(stdout).toContain('installed weather (2 tools, enabled: false)');
      expect(stdout).toContain("secrets set: [ '/apiKey' ]");
      expect(stdout).toMatch(/tool calls: getForecast ok \d+ms, celsiusToFahrenheit ok \d+ms/);
    }

    const loop = readme.line((text) => text.includes('`node examples/agent-loop.mjs "'), 'the agent loop');
    const [, loopLine] = loop.text.match(/`(node examples\/agent-loop\.mjs "[^"]*")`/) ?? [];
    const stdout = await bash(readme, [{ ...loop, text: loopLine ?? '' }], copy);
    expect(stdout).toMatch(/search: .*weather\.getForecast/);
    expect(stdout).toMatch(/context: \d+ characters of types, \d+ of docs/);
    expect(stdout, readme.where(loop)).toContain('result: {"answer":"Oslo: snow showers, 39.2°F"}');
  });

  it('runs the MCP walkthrough and lists the tools through the Claude Desktop bridge', async () => {
    const command = readme.line(
      (text) => text.includes('`node examples/mcp-walkthrough.mjs`'),
      'the MCP walkthrough',
    );
    const stdout = await bash(readme, [{ ...command, text: 'node examples/mcp-walkthrough.mjs' }], copy);
    const example = new Markdown(
      'examples/mcp-walkthrough.mjs',
      await readFile(join(copy, 'examples', 'mcp-walkthrough.mjs'), 'utf8'),
    );
    const promised = numberedPromises({ info: 'js', lines: example.lines }, '//');
    expect(promised).toHaveLength(3);
    expect(missingLines(example.name, promised, stdout.split('\n')), stdout).toEqual([]);

    // The Claude Desktop configuration, with this copy's path, this server and its key.
    const block = readme.block(
      'json',
      (text) => text.includes('"args": ["/path/to/cyrnel/scripts/mcp.sh"]'),
      'the Claude Desktop configuration',
    );
    const config = JSON.parse(
      block.lines
        .map((line) => line.text)
        .join('\n')
        .replace('/path/to/cyrnel', copy)
        .replace('http://127.0.0.1:9371', url)
        .replace('cyk_…', API_KEY),
    ) as { mcpServers: { cyrnel: { command: string; args: string[]; env: Record<string, string> } } };
    const tools = await listToolsOverStdio(config.mcpServers.cyrnel);
    // The README's table of the MCP tools is what the server lists.
    const table = readme
      .section('## Connect an MCP client')
      .filter((line) => /^\| `[a-z_]+` \| /.test(line.text));
    const documented = table.map((line) => line.text.match(/^\| `([a-z_]+)`/)?.[1]);
    expect(tools.sort(), table.map((line) => readme.where(line)).join('\n')).toEqual(documented.sort());
    const count = readme.line((text) => text.includes('as six tools any MCP client'), 'the MCP tool count');
    expect(tools.length, readme.where(count)).toBe(6);

    // The upstream serves the walkthrough's document pointing at itself.
    const document = (await (await fetch(`${upstreamUrl}/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    expect(document.servers).toEqual([{ url: upstreamUrl }]);
    const installed = await client.services.update('weather', { url: `${upstreamUrl}/openapi.json` });
    expect(installed).toMatchObject({ source: `${upstreamUrl}/openapi.json`, toolCount: 2 });
  });

  it("scaffolds a module with the guide's command, installs it as the guide says and invokes its tool", async () => {
    const guide = await Markdown.read(copy, 'packages/sdk/README.md');
    const block = guide.block(
      'sh',
      (text) => text.startsWith('pnpm cyrnel-server module init'),
      'the module guide',
    );
    const [init, check, copyIn, reload] = block.lines as [
      NumberedLine,
      NumberedLine,
      NumberedLine,
      NumberedLine,
    ];
    expect(block.lines).toHaveLength(4);
    const [, folder] = init.text.match(/module init \.\/(\S+) --type adapter/) ?? [];
    expect(folder, guide.where(init)).toBeDefined();
    const id = folder ?? '';
    const scaffolded = await bash(guide, [init], copy, 300_000);
    expect(scaffolded, guide.where(init)).toContain(`Wrote the adapter module ${id}`);
    // The second line (npm install, then tsc) is optional and needs @cyrnel/sdk on the npm registry;
    // module-scaffold.test.ts runs it against packed tarballs (`--from`), as the guide says next.
    expect(check.text, guide.where(check)).toMatch(new RegExp(`^cd ${id} && npm install .*# optional`));
    // Into this server's data directory, at this server's address.
    const dataDir = join(work, 'demo');
    await bash(guide, [{ ...copyIn, text: copyIn.text.replaceAll('~/.cyrnel', dataDir) }], join(copy, id));
    const answer = await bash(
      guide,
      [{ ...reload, text: reload.text.replace('http://127.0.0.1:9371', url) }],
      join(copy, id),
    );
    expect(JSON.parse(answer), guide.where(reload)).toMatchObject({
      loaded: expect.arrayContaining([id]),
      skipped: [],
    });
    expect(await client.modules.get(id)).toMatchObject({ type: 'adapter', enabled: true, status: 'active' });
    await client.services.install({ id: 'demo', adapter: id, definition: '["ping"]', enabled: true });
    // Out of the box a tool that is not read-only asks first (the README's approvals): the call
    // waits until an operator approves it.
    const running = client.processes.run(
      "cyrnel.output(await cyrnel.services.demo.tools.ping.invoke({ hello: 'world' }));",
      { throwOnFailure: true },
    );
    let pending = (await client.approvals.list({ state: 'pending' })).items;
    for (let tries = 0; pending.length === 0 && tries < 300; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      pending = (await client.approvals.list({ state: 'pending' })).items;
    }
    expect(pending).toEqual([expect.objectContaining({ serviceId: 'demo', toolId: 'ping' })]);
    await client.approvals.decide(pending[0]?.id ?? '', { decision: 'approve' });
    const result = await running;
    expect(result.output).toEqual({ tool: 'ping', parameters: { hello: 'world' } });
  });
});
