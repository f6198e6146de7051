import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { detectInstall, serverDistDir } from '../src/server-install';
import { apiClient, startTestServer, tempDir } from './helpers';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Files at `paths` (relative to `root`), each with `text`, their folders made. */
function files(root: string, entries: Record<string, string>): void {
  for (const [path, text] of Object.entries(entries)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe('how the server was installed', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('cyrnel-install-');
  });
  afterAll(async () => {
    await dir.remove();
  });

  it('knows a checkout by its scripts/mcp.sh, and runs the bridge through it', () => {
    const root = join(dir.path, 'checkout');
    files(root, { 'scripts/mcp.sh': '', 'pnpm-workspace.yaml': '', 'apps/server/dist/cli.js': '' });
    expect(detectInstall(join(root, 'apps/server/dist'))).toEqual({
      kind: 'checkout',
      path: root,
      mcp: { command: 'bash', args: [join(root, 'scripts/mcp.sh')] },
    });
    // This test's own server runs from this repository.
    expect(detectInstall(serverDistDir())).toMatchObject({ kind: 'checkout', path: ROOT });
  });

  it('runs an npm install’s cli.js with the same Node.js, whatever the client’s PATH', () => {
    const installed = join(dir.path, 'project/node_modules/@cyrnel/server');
    files(installed, { 'package.json': '{"name":"@cyrnel/server"}', 'dist/cli.js': '' });
    // A scripts/mcp.sh three folders up inside node_modules is no checkout.
    files(join(dir.path, 'project/node_modules'), { 'scripts/mcp.sh': '', 'pnpm-workspace.yaml': '' });
    expect(detectInstall(join(installed, 'dist'), '/opt/node24/bin/node')).toEqual({
      kind: 'package',
      path: installed,
      mcp: { command: '/opt/node24/bin/node', args: [join(installed, 'dist/cli.js'), 'mcp'] },
    });
  });

  it('repeats the packages npx was given, tarballs or the registry’s', () => {
    const cache = join(dir.path, 'npm/_npx/0a1b2c');
    const tarballs = ['/srv/packed/cyrnel-server-0.1.0.tgz', '/srv/packed/cyrnel-sdk-0.1.0.tgz'];
    files(cache, {
      'package.json': JSON.stringify({ _npx: { packages: tarballs } }),
      'node_modules/@cyrnel/server/package.json': '{"name":"@cyrnel/server"}',
    });
    expect(detectInstall(join(cache, 'node_modules/@cyrnel/server/dist'))).toEqual({
      kind: 'npx',
      path: cache,
      mcp: {
        command: 'npx',
        args: ['-y', ...tarballs.map((file) => `--package=${file}`), 'cyrnel-server', 'mcp'],
      },
    });
    const published = join(dir.path, 'npm/_npx/3d4e5f');
    files(published, {
      'package.json': JSON.stringify({ _npx: { packages: ['@cyrnel/server'] } }),
      'node_modules/@cyrnel/server/package.json': '{"name":"@cyrnel/server"}',
    });
    expect(detectInstall(join(published, 'node_modules/@cyrnel/server/dist')).mcp).toEqual({
      command: 'npx',
      args: ['-y', '@cyrnel/server', 'mcp'],
    });
  });

  it('says unknown for files elsewhere', () => {
    files(dir.path, { 'bundle/dist/cli.js': '' });
    expect(detectInstall(join(dir.path, 'bundle/dist'))).toEqual({ kind: 'unknown', path: null, mcp: null });
  });
});

describe('GET /server', () => {
  let server: RunningServer;
  let data: { path: string; remove(): Promise<void> };
  beforeAll(async () => {
    data = await tempDir();
    server = await startTestServer({ dataDir: data.path, port: 0, apiKey: 'admin-key' });
  });
  afterAll(async () => {
    await server?.close();
    await data?.remove();
  });

  it('answers admins the version and the installation; nobody else', async () => {
    const admin = apiClient(server.url, 'admin-key');
    const about = await admin('GET', '/server');
    expect(about.status).toBe(200);
    expect(about.body).toEqual({
      version: VERSION,
      install: {
        kind: 'checkout',
        path: ROOT,
        mcp: { command: 'bash', args: [join(ROOT, 'scripts/mcp.sh')] },
      },
    });
    const agentKey = (await admin('POST', '/keys', { name: 'agent', role: 'agent' })).body.key as string;
    expect((await apiClient(server.url, agentKey)('GET', '/server')).status).toBe(403);
    expect((await apiClient(server.url)('GET', '/server')).status).toBe(401);
  });
});
