import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listToolsOverStdio, type StdioServerConfig } from '../support/mcp-stdio';
import { NPM_FLAGS, packTarballs, ROOT, shell, userEnv } from '../support/packed';

const run = promisify(execFile);
const KEY = 'packed-admin-key';

/** The library packages: what users `import` and `require` (name, one export to look for). */
const LIBRARIES: readonly (readonly [string, string])[] = [
  ['@cyrnel/sdk', 'cyrnelError'],
  ['@cyrnel/client', 'createClient'],
  ['@cyrnel/core', 'createHost'],
  ['@cyrnel/store', 'createStore'],
  ['@cyrnel/http', 'createApp'],
  ['@cyrnel/adapter-openapi', 'instantiate'],
  ['@cyrnel/adapter-mcp', 'instantiate'],
  ['@cyrnel/env-typescript-ivm', 'instantiate'],
  ['@cyrnel/mcp', 'createCyrnelMcpServer'],
];
/** What module authors and client users run on every maintained Node LTS. */
const PORTABLE = ['@cyrnel/sdk', '@cyrnel/client'];

/**
 * The publishable packages, counted from the workspace itself: every package folder whose
 * manifest is not private and not left out of releases (`.changeset/config.json`'s `ignore`).
 */
function publishable(): { name: string; version: string; dir: string }[] {
  const { ignore } = JSON.parse(readFileSync(join(ROOT, '.changeset', 'config.json'), 'utf8')) as {
    ignore: string[];
  };
  const dirs = ['packages', 'apps'].flatMap((parent) =>
    readdirSync(join(ROOT, parent)).map((name) => `${parent}/${name}`),
  );
  return [...dirs, 'bench', 'e2e']
    .filter((dir) => existsSync(join(ROOT, dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true && !ignore.includes(manifest.name))
    .map(({ dir, manifest }) => ({ name: manifest.name, version: manifest.version, dir }));
}

/** The line of pack.sh's output that starts with `start` (after its indentation). */
function printedLine(printed: string, start: string): string {
  const line = printed.split('\n').find((candidate) => candidate.trimStart().startsWith(start));
  if (line === undefined) throw new Error(`pack.sh printed no line starting with ${start}:\n${printed}`);
  return line.trim();
}

/** The MCP client configuration pack.sh printed (the JSON block). */
function printedConfig(printed: string): StdioServerConfig & { env: Record<string, string> } {
  const lines = printed.split('\n');
  const start = lines.indexOf('{');
  const end = lines.indexOf('}', start);
  return JSON.parse(lines.slice(start, end + 1).join('\n')).mcpServers.cyrnel;
}

/** A JSON log line as an object, or undefined for anything else (a dependency's stray output). */
function readJsonLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A Node.js 20 binary: the machine's when it has one, else npm's `node@20` package, cached. */
async function node20(): Promise<string> {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const { stdout } = await run(candidate, ['-p', 'process.versions.node']);
    if (stdout.startsWith('20.')) return candidate;
  }
  const prefix = join(homedir(), '.cache', 'cyrnel-toolchain', 'node20');
  const bin = join(prefix, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(prefix, { recursive: true });
    await shell(`npm install --prefix ${prefix} ${NPM_FLAGS} node@20`, prefix, 240_000);
  }
  return bin;
}

/** npm's npx cache folders made for these tarballs (npx keeps one per list of packages). */
async function npxCaches(tarballs: string): Promise<string[]> {
  const cache = join((await shell('npm config get cache', tmpdir(), 60_000)).trim(), '_npx');
  if (!existsSync(cache)) return [];
  return readdirSync(cache)
    .map((name) => join(cache, name))
    .filter((dir) => {
      try {
        return readFileSync(join(dir, 'package.json'), 'utf8').includes(tarballs);
      } catch {
        return false;
      }
    });
}

let work: string;
let tarballs: string;
let project: string;
let printed: string;
let child: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-packed-'));
  tarballs = join(work, 'dist-packages');
  project = join(work, 'try-cyrnel');
  mkdirSync(project);
  printed = await packTarballs(tarballs);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'try-cyrnel', private: true }));
  // The line pack.sh printed, as a user pastes it, into an empty project.
  await shell(`${printedLine(printed, 'npm install ')} ${NPM_FLAGS}`, project);
}, 400_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (tarballs) for (const dir of await npxCaches(tarballs)) rmSync(dir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

describe('the tarballs of scripts/pack.sh', () => {
  it('hold every publishable package of the workspace, each with the license and the repository', async () => {
    const packages = publishable();
    expect(packages.length).toBeGreaterThanOrEqual(12);
    const files = readdirSync(tarballs).filter((file) => file.endsWith('.tgz'));
    expect(files.sort()).toEqual(
      packages.map(({ name, version }) => `${name.slice(1).replace('/', '-')}-${version}.tgz`).sort(),
    );
    expect(printed).toContain(`Packed ${packages.length} packages into ${tarballs}`);
    for (const { name, version, dir } of packages) {
      const file = join(tarballs, `${name.slice(1).replace('/', '-')}-${version}.tgz`);
      const read = async (entry: string) => (await run('tar', ['-xzOf', file, `package/${entry}`])).stdout;
      expect(await read('LICENSE'), name).toMatch(/^MIT License/);
      const manifest = JSON.parse(await read('package.json'));
      expect(manifest.repository, name).toMatchObject({
        url: expect.stringMatching(/^git\+https:/),
        directory: dir,
      });
      expect(JSON.stringify(manifest.dependencies ?? {}), name).not.toContain('workspace:');
    }
  });

  it('load, installed with the printed line, with import and with require', async () => {
    const script = (kind: 'import' | 'require') =>
      LIBRARIES.map(([name, symbol]) =>
        kind === 'import'
          ? `if (typeof (await import('${name}')).${symbol} !== 'function') throw new Error('${name}: no ${symbol}');`
          : `if (typeof require('${name}').${symbol} !== 'function') throw new Error('${name}: no ${symbol}');`,
      ).join('\n');
    writeFileSync(join(project, 'check.mjs'), `${script('import')}\nconsole.log('ok');\n`);
    writeFileSync(join(project, 'check.cjs'), `${script('require')}\nconsole.log('ok');\n`);
    for (const file of ['check.mjs', 'check.cjs']) {
      const { stdout } = await run(process.execPath, [file], { cwd: project, timeout: 60_000 });
      expect(stdout, file).toBe('ok\n');
    }
  });

  it('type-check under nodenext (ESM and CommonJS), bundler and node10 resolution', async () => {
    const imports = LIBRARIES.map(
      ([name, symbol], index) => `import { ${symbol} as s${index} } from '${name}';`,
    );
    const uses = LIBRARIES.map((_, index) => `s${index}`).join(', ');
    const wire =
      "import type { ProcessRecord } from '@cyrnel/sdk/api';\nexport const record: ProcessRecord | undefined = undefined;";
    const source = `${imports.join('\n')}\n${wire}\nexport const all = [${uses}];\n`;
    const modes: Record<string, { file: string; options: Record<string, unknown> }> = {
      'nodenext-esm': { file: 'types.mts', options: { module: 'nodenext', moduleResolution: 'nodenext' } },
      'nodenext-cjs': { file: 'types.cts', options: { module: 'nodenext', moduleResolution: 'nodenext' } },
      bundler: { file: 'types.ts', options: { module: 'esnext', moduleResolution: 'bundler' } },
      node10: { file: 'types.ts', options: { module: 'commonjs', moduleResolution: 'node10' } },
    };
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    for (const [mode, { file, options }] of Object.entries(modes)) {
      const dir = join(project, `ts-${mode}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, file), source);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            ...options,
            target: 'es2022',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: [],
          },
          files: [file],
        }),
      );
      const result = await run(process.execPath, [tsc, '-p', dir], { cwd: project, timeout: 120_000 }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(result, mode).toBe('');
    }
  });

  it('run the client and the SDK on Node.js 20, from import and from require', {
    timeout: 300_000,
  }, async () => {
    const node = await node20();
    const portable = LIBRARIES.filter(([name]) => PORTABLE.includes(name));
    writeFileSync(
      join(project, 'node20.mjs'),
      `${portable.map(([name, symbol]) => `if (typeof (await import('${name}')).${symbol} !== 'function') throw new Error('${name}');`).join('\n')}\nconsole.log(process.versions.node.split('.')[0]);\n`,
    );
    writeFileSync(
      join(project, 'node20.cjs'),
      `${portable.map(([name, symbol]) => `if (typeof require('${name}').${symbol} !== 'function') throw new Error('${name}');`).join('\n')}\nconsole.log(process.versions.node.split('.')[0]);\n`,
    );
    for (const file of ['node20.mjs', 'node20.cjs']) {
      const { stdout } = await run(node, [file], { cwd: project, timeout: 60_000 });
      expect(stdout, file).toBe('20\n');
    }
  });

  it('start the installed cyrnel-server: /health, the admin UI, and GET /server names the npm install whose MCP bridge connects', {
    timeout: 180_000,
  }, async () => {
    const data = join(work, 'data');
    const version = await shell('npx --no-install cyrnel-server --version', project, 60_000);
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const bin = join(project, 'node_modules', '.bin', 'cyrnel-server');
    child = spawn(bin, ['--port', '0', '--data-dir', data], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...userEnv(), CYRNEL_API_KEY: KEY },
    });
    url = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      let stderr = '';
      child?.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      child?.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const entry = readJsonLine(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
          if (entry?.msg === 'listening' && typeof entry.url === 'string') resolve(entry.url);
        }
      });
      child?.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    // The admin UI ships inside the packages: its page and script are served.
    const ui = await fetch(`${url}/ui/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('<script type="module" src="app.js">');
    expect((await fetch(`${url}/ui/app.js`)).status).toBe(200);
    // What the Connect page shows: this installation's bridge, run as an MCP client would.
    const answer = await fetch(`${url}/server`, { headers: { authorization: `Bearer ${KEY}` } });
    const about = (await answer.json()) as { install: { mcp: StdioServerConfig } };
    const installed = join(project, 'node_modules', '@cyrnel', 'server');
    expect(about.install).toEqual({
      kind: 'package',
      path: installed,
      mcp: { command: expect.any(String), args: [join(installed, 'dist', 'cli.js'), 'mcp'] },
    });
    const tools = await listToolsOverStdio({
      ...about.install.mcp,
      env: { CYRNEL_URL: url, CYRNEL_API_KEY: KEY },
    });
    expect(tools).toContain('execute_typescript');
  });

  it('run with the printed npx line, and connect an MCP client with the printed configuration', {
    timeout: 400_000,
  }, async () => {
    expect(url, 'the server of the test before').toBeDefined();
    const empty = join(work, 'elsewhere');
    mkdirSync(empty);
    const npx = printedLine(printed, 'npx -y --package=');
    expect(npx).toMatch(/ cyrnel-server$/);
    expect((await shell(`${npx} --version`, empty)).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const config = printedConfig(printed);
    expect(config.command).toBe('npx');
    expect(config.env).toEqual({ CYRNEL_URL: 'http://127.0.0.1:9371', CYRNEL_API_KEY: 'cyk_…' });
    const tools = await listToolsOverStdio(
      { ...config, env: { CYRNEL_URL: url, CYRNEL_API_KEY: KEY } },
      300_000,
    );
    expect(tools).toContain('execute_typescript');
    // The bin forwards SIGTERM to the server it started, which stops cleanly.
    child?.kill('SIGTERM');
    const code = await new Promise((resolve) => child?.on('exit', resolve));
    expect(code).toBe(0);
  });
});
