import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, shopSpec, startUpstream, tempDir, type Upstream } from './helpers';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const KEY = 'lifecycle-key';

interface Launched {
  child: ChildProcess;
  url: string;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

// Launch the built binary the way a user does (plain `node`, so the launcher must re-exec
// with --no-node-snapshot) and wait for its "listening" line.
function launch(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Launched> {
  const child = spawn(process.execPath, [CLI, '--port', '0', '--data-dir', dataDir, '--log-level', 'info'], {
    env: { ...process.env, CYRNEL_API_KEY: KEY, NODE_OPTIONS: '', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        // Tolerate a stray non-JSON line (a dependency's console output); assertions use the JSON ones.
        const line = text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text };
        lines.push(line);
        if (line.msg === 'listening') resolve({ child, url: line.url as string, lines, exited });
      }
    });
    exited.then((code) => reject(new Error(`server exited with ${code} before listening: ${stderr}`)));
  });
}

describe('cyrnel-server binary', () => {
  const launched: ChildProcess[] = [];
  let upstream: Upstream;

  beforeAll(async () => {
    upstream = await startUpstream();
  });

  afterEach(() => {
    for (const child of launched.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  afterAll(async () => {
    await upstream?.close();
  });

  it('prints every flag with its variable on --help', () => {
    const result = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('--data-dir');
    expect(result.stdout).toContain('CYRNEL_DATA_DIR');
    expect(result.stdout).toContain('CYRNEL_SHUTDOWN_TIMEOUT_MS');
  });

  it('refuses invalid values with exit code 2 and a message naming the flag', () => {
    const badPort = spawnSync(process.execPath, [CLI, '--port', 'ninety'], { encoding: 'utf8' });
    expect(badPort.status).toBe(2);
    expect(badPort.stderr).toContain('--port');
    const badEnv = spawnSync(process.execPath, [CLI], {
      encoding: 'utf8',
      env: { ...process.env, CYRNEL_LOG_LEVEL: 'loud' },
    });
    expect(badEnv.status).toBe(2);
    expect(badEnv.stderr).toContain('CYRNEL_LOG_LEVEL');
    const postgres = spawnSync(process.execPath, [CLI, '--database-url', 'postgres://x/y'], {
      encoding: 'utf8',
    });
    expect(postgres.status).toBe(2);
    expect(postgres.stderr).toContain('only sqlite');
  });

  it('refuses a non-loopback bind without an API key unless --insecure', async () => {
    const dir = await tempDir();
    const result = spawnSync(
      process.execPath,
      [CLI, '--host', '0.0.0.0', '--port', '0', '--data-dir', dir.path],
      {
        encoding: 'utf8',
        env: { ...process.env, CYRNEL_API_KEY: '' },
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/refusing to bind 0\.0\.0\.0 without an API key/);
    await dir.remove();
  });

  it('exits 1 with a logged reason when the port is taken', async () => {
    const dir = await tempDir();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = String((blocker.address() as AddressInfo).port);
    const result = spawnSync(process.execPath, [CLI, '--port', port, '--data-dir', dir.path], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/"msg":"failed to start".*EADDRINUSE/);
    await new Promise((resolve) => blocker.close(resolve));
    await dir.remove();
  });

  it('starts, announces the URL and data dir, shuts down on SIGTERM recording a running process, and restarts with everything kept', async () => {
    const dir = await tempDir();
    const first = await launch(dir.path, { CYRNEL_SHUTDOWN_TIMEOUT_MS: '1000' });
    launched.push(first.child);
    const listening = first.lines.find((line) => line.msg === 'listening');
    expect(listening).toMatchObject({ url: first.url, dataDir: dir.path });
    // The launcher re-executed itself: the server is another process, started with the flag.
    expect(listening?.pid).not.toBe(first.child.pid);
    const cmdline = await readFile(`/proc/${listening?.pid}/cmdline`, 'utf8');
    expect(cmdline.split('\0')).toContain('--no-node-snapshot');
    expect((await stat(join(dir.path, 'secrets.key'))).mode & 0o777).toBe(0o600);
    const api = apiClient(first.url, KEY);
    expect((await api('GET', '/health')).body).toEqual({ status: 'ok' });

    const installed = await api('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec(upstream.url)),
      secrets: { shopKey: 'kept-secret' },
      enabled: true,
    });
    expect(installed.status).toBe(201);
    await api('POST', '/tools/shop/listOrders/enabled', { enabled: false });
    const done = await api('POST', '/processes', {
      code: 'console.log("done"); cyrnel.output({ ok: 1 })',
      wait: true,
    });
    expect(done.body).toMatchObject({ exitState: 'success' });
    // A client waiting on a running process when the signal arrives gets the recorded result.
    const waiting = api('POST', '/processes', {
      code: 'console.log("waiting"); await new Promise((r) => setTimeout(r, 60000));',
      timeoutMs: 120000,
      ref: 'interrupted',
      wait: true,
    });
    let runningId: number | undefined;
    for (let state = ''; state !== 'running'; await sleep(50)) {
      const listed = await api('GET', '/processes?ref=interrupted');
      runningId = listed.body.items[0]?.id;
      state = listed.body.items[0]?.state ?? '';
    }
    const running = { body: { id: runningId as number } };
    first.child.kill('SIGTERM');
    const answered = await waiting;
    expect(answered).toMatchObject({
      status: 201,
      body: { id: running.body.id, state: 'idle', stdout: 'waiting\n' },
    });
    expect(answered.body.exitState).toMatch(/canceled|failed/);
    expect(await first.exited).toBe(0);
    expect(first.lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));

    const second = await launch(dir.path);
    launched.push(second.child);
    const again = apiClient(second.url, KEY);
    expect((await again('GET', '/services/shop')).body).toMatchObject({
      id: 'shop',
      enabled: true,
      toolCount: 2,
    });
    expect((await again('GET', '/services/shop/secrets')).body).toEqual({ present: ['/shopKey'] });
    expect((await again('GET', '/tools/shop/listOrders')).body).toMatchObject({ enabled: false });
    expect((await again('GET', `/processes/${done.body.id}/output`)).body).toEqual({ ok: 1 });
    expect((await again('GET', `/processes/${done.body.id}/stdout`)).text).toBe('done\n');
    const interrupted = await again('GET', `/processes/${running.body.id}`);
    expect(interrupted.body).toMatchObject({
      state: 'idle',
      exitState: expect.stringMatching(/canceled|failed/),
    });
    expect(interrupted.body.error).toEqual(expect.any(String));
    expect((await again('GET', `/processes/${running.body.id}/stdout`)).text).toBe('waiting\n');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    await dir.remove();
  });
});
