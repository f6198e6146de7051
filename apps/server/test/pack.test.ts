import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Every workspace package the server needs at run time, including itself.
const PACKAGES = [
  'packages/sdk',
  'packages/core',
  'packages/store',
  'packages/adapter-openapi',
  'packages/adapter-mcp',
  'packages/env-typescript-ivm',
  'packages/http',
  'packages/client',
  'packages/mcp',
  'packages/admin-ui',
  'apps/server',
];

/**
 * The environment of a user's shell: without the `npm_*` variables that `pnpm run` sets for the
 * test (pnpm's own rc file as npm's global config, its node-gyp, its user agent), which would make
 * npm behave unlike the npm a user runs. Variables a user sets (`NPM_CONFIG_*`) are kept.
 */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('npm_')) env[name] = value;
  }
  return env;
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
    await run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', 'node@20'], {
      timeout: 240_000,
      env: userEnv(),
    });
  }
  return bin;
}

describe('packed tarballs', () => {
  let child: ChildProcess | undefined;
  let serverPid: number | undefined;
  let project: { path: string; remove(): Promise<void> };
  const dirs: { remove(): Promise<void> }[] = [];

  beforeAll(async () => {
    const tarballs = await tempDir('cyrnel-tarballs-');
    project = await tempDir('cyrnel-install-');
    dirs.push(tarballs, project);
    for (const pkg of PACKAGES) {
      await run('pnpm', ['pack', '--pack-destination', tarballs.path], {
        cwd: join(ROOT, pkg),
        timeout: 60_000,
      });
    }
    const files = readdirSync(tarballs.path).filter((file) => file.endsWith('.tgz'));
    expect(files).toHaveLength(PACKAGES.length);
    writeFileSync(join(project.path, 'package.json'), JSON.stringify({ name: 'try-cyrnel', private: true }));
    // One command, so npm satisfies the @cyrnel/* ranges pnpm wrote from these tarballs. Asynchronous
    // with a deadline (and few retries), so a registry that cannot be reached fails this test with
    // npm's own message instead of blocking the worker.
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        '--fetch-retries=1',
        '--fetch-timeout=60000',
        ...files.map((file) => join(tarballs.path, file)),
      ],
      { cwd: project.path, timeout: 240_000, env: { ...userEnv(), npm_config_update_notifier: 'false' } },
    ).catch((error: Error & { stderr?: string }) => {
      throw new Error(`npm install failed: ${error.message}\n${error.stderr ?? ''}`);
    });
  }, 300_000);

  afterAll(async () => {
    // The bin is the launcher; the server it re-executed is another process.
    if (child && child.exitCode === null) child.kill('SIGKILL');
    if (serverPid !== undefined) {
      try {
        process.kill(serverPid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    for (const dir of dirs) await dir.remove();
  });

  it('carries the license and the repository in every package', () => {
    for (const pkg of PACKAGES) {
      const { name } = JSON.parse(readFileSync(join(ROOT, pkg, 'package.json'), 'utf8')) as { name: string };
      const installed = join(project.path, 'node_modules', ...name.split('/'));
      expect(readFileSync(join(installed, 'LICENSE'), 'utf8'), name).toMatch(/^MIT License/);
      const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
      expect(manifest.repository, name).toMatchObject({
        url: expect.stringMatching(/^git\+https:/),
        directory: pkg,
      });
    }
  });

  it('loads every library with import and with require', async () => {
    const script = (kind: 'import' | 'require') =>
      LIBRARIES.map(([name, symbol]) =>
        kind === 'import'
          ? `if (typeof (await import('${name}')).${symbol} !== 'function') throw new Error('${name}: no ${symbol}');`
          : `if (typeof require('${name}').${symbol} !== 'function') throw new Error('${name}: no ${symbol}');`,
      ).join('\n');
    writeFileSync(join(project.path, 'check.mjs'), `${script('import')}\nconsole.log('ok');\n`);
    writeFileSync(join(project.path, 'check.cjs'), `${script('require')}\nconsole.log('ok');\n`);
    for (const file of ['check.mjs', 'check.cjs']) {
      const { stdout } = await run(process.execPath, [file], { cwd: project.path, timeout: 60_000 });
      expect(stdout, file).toBe('ok\n');
    }
  });

  it('type-checks the libraries under nodenext (ESM and CommonJS), bundler and node10 resolution', async () => {
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
      const dir = join(project.path, `ts-${mode}`);
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
      const result = await run(process.execPath, [tsc, '-p', dir], {
        cwd: project.path,
        timeout: 120_000,
      }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(result, mode).toBe('');
    }
  });

  it('runs the client and the SDK on Node.js 20, from import and from require', {
    timeout: 300_000,
  }, async () => {
    const node = await node20();
    const portable = LIBRARIES.filter(([name]) => PORTABLE.includes(name));
    writeFileSync(
      join(project.path, 'node20.mjs'),
      `${portable.map(([name, symbol]) => `if (typeof (await import('${name}')).${symbol} !== 'function') throw new Error('${name}');`).join('\n')}\nconsole.log(process.versions.node.split('.')[0]);\n`,
    );
    writeFileSync(
      join(project.path, 'node20.cjs'),
      `${portable.map(([name, symbol]) => `if (typeof require('${name}').${symbol} !== 'function') throw new Error('${name}');`).join('\n')}\nconsole.log(process.versions.node.split('.')[0]);\n`,
    );
    for (const file of ['node20.mjs', 'node20.cjs']) {
      const { stdout } = await run(node, [file], { cwd: project.path, timeout: 60_000 });
      expect(stdout, file).toBe('20\n');
    }
  });

  it('runs the bin through npx and from node_modules/.bin, and serves /health and the admin UI', {
    timeout: 120_000,
  }, async () => {
    const data = await tempDir('cyrnel-data-');
    dirs.push(data);
    const version = await run('npx', ['--no-install', 'cyrnel-server', '--version'], {
      cwd: project.path,
      timeout: 60_000,
      env: userEnv(),
    });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const bin = join(project.path, 'node_modules', '.bin', 'cyrnel-server');
    child = spawn(bin, ['--port', '0', '--data-dir', data.path], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: userEnv(),
    });
    const url = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      let stderr = '';
      child?.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      child?.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          const entry = readJsonLine(line);
          if (entry?.msg === 'listening' && typeof entry.url === 'string') {
            serverPid = typeof entry.pid === 'number' ? entry.pid : undefined;
            resolve(entry.url);
          }
        }
      });
      child?.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    // The admin UI ships inside the packages: its page and script are served.
    const ui = await fetch(`${url}/ui/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('<script type="module" src="app.js">');
    expect((await fetch(`${url}/ui/app.js`)).status).toBe(200);
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child?.on('exit', resolve));
    expect(code).toBe(0);
  });
});
