import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
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

describe('packed tarballs', () => {
  let child: ChildProcess | undefined;
  let serverPid: number | undefined;
  const dirs: { remove(): Promise<void> }[] = [];

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

  it('install with npm in an empty folder and serve /health from the bin', { timeout: 300_000 }, async () => {
    const tarballs = await tempDir('cyrnel-tarballs-');
    const project = await tempDir('cyrnel-install-');
    const data = await tempDir('cyrnel-data-');
    dirs.push(tarballs, project, data);
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
    // Every package carries the license and says where its source is.
    for (const pkg of PACKAGES) {
      const { name } = JSON.parse(readFileSync(join(ROOT, pkg, 'package.json'), 'utf8')) as { name: string };
      const installed = join(project.path, 'node_modules', ...name.split('/'));
      expect(readFileSync(join(installed, 'LICENSE'), 'utf8'), name).toMatch(/^MIT License/);
      const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
      expect(manifest.repository, name).toMatchObject({ url: expect.stringMatching(/^git\+https:/), directory: pkg });
    }
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
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child?.on('exit', resolve));
    expect(code).toBe(0);
  });
});
