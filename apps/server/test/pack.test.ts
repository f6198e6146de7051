import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Every workspace package the server needs at run time, including itself.
const PACKAGES = [
  'packages/sdk',
  'packages/core',
  'packages/store',
  'packages/adapter-openapi',
  'packages/env-typescript-ivm',
  'packages/http',
  'apps/server',
];

describe('packed tarballs', () => {
  let child: ChildProcess | undefined;
  const dirs: { remove(): Promise<void> }[] = [];

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    for (const dir of dirs) await dir.remove();
  });

  it('install with npm in an empty folder and serve /health from the bin', { timeout: 240_000 }, async () => {
    const tarballs = await tempDir('cyrnel-tarballs-');
    const project = await tempDir('cyrnel-install-');
    const data = await tempDir('cyrnel-data-');
    dirs.push(tarballs, project, data);
    for (const pkg of PACKAGES) {
      execFileSync('pnpm', ['pack', '--pack-destination', tarballs.path], {
        cwd: join(ROOT, pkg),
        stdio: 'pipe',
      });
    }
    const files = readdirSync(tarballs.path).filter((file) => file.endsWith('.tgz'));
    expect(files).toHaveLength(PACKAGES.length);
    writeFileSync(join(project.path, 'package.json'), JSON.stringify({ name: 'try-cyrnel', private: true }));
    // One command, so npm satisfies the @cyrnel/* ranges pnpm wrote from these tarballs.
    execFileSync(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        ...files.map((file) => join(tarballs.path, file)),
      ],
      { cwd: project.path, stdio: 'pipe', env: { ...process.env, npm_config_update_notifier: 'false' } },
    );
    const bin = join(project.path, 'node_modules', '.bin', 'cyrnel-server');
    child = spawn(bin, ['--port', '0', '--data-dir', data.path], { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      let stderr = '';
      child?.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      child?.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        const match = /"msg":"listening","url":"([^"]+)"/.exec(buffer);
        if (match?.[1]) resolve(match[1]);
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
