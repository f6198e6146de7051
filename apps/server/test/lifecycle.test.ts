import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '@cyrnel/store/sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_FLAGS } from '../src/server-flags';
import { apiClient, shopSpec, startUpstream, tempDir, type Upstream } from './helpers';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const KEY = 'lifecycle-key';

interface Launched {
  /** The server (`cli.js`): one process. */
  child: ChildProcess;
  url: string;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

interface LaunchOptions {
  env?: Record<string, string>;
  args?: string[];
  /** Own process group, so a test can signal the group like a terminal's Ctrl-C does. */
  detached?: boolean;
}

// Launch the built binary the way a user does (plain `node`) and wait for its "listening" line.
function launch(dataDir: string, options: LaunchOptions = {}): Promise<Launched> {
  const args = options.args ?? ['--log-level', 'info'];
  const child = spawn(process.execPath, [CLI, '--port', '0', '--data-dir', dataDir, ...args], {
    env: { ...process.env, CYRNEL_API_KEY: KEY, NODE_OPTIONS: '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached === true,
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

/** Resolves once a line with `msg` has been logged. */
async function logged(lines: Record<string, unknown>[], msg: string, count = 1): Promise<void> {
  while (lines.filter((line) => line.msg === msg).length < count) await sleep(20);
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

  it('prints every flag of the flag table with its variable on --help', () => {
    const result = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const listed = [...result.stdout.matchAll(/^ {2}--([a-z-]+)/gm)].map((match) => match[1]);
    expect(listed).toEqual([...SERVER_FLAGS.map((spec) => spec.flag), 'help', 'version']);
    for (const spec of SERVER_FLAGS) {
      expect(result.stdout).toMatch(new RegExp(`--${spec.flag}\\b.*${spec.env}`));
    }
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
    // A shared database wants the secrets key from the environment, not a key file of one host.
    const postgres = spawnSync(process.execPath, [CLI, '--database-url', 'postgres://x/y'], {
      encoding: 'utf8',
      env: { ...process.env, CYRNEL_SECRETS_KEY: '' },
    });
    expect(postgres.status).toBe(2);
    expect(postgres.stderr).toContain('a PostgreSQL database needs the secrets key from the environment');
    const badHost = spawnSync(process.execPath, [CLI, '--host', 'my host'], { encoding: 'utf8' });
    expect(badHost.status).toBe(2);
    expect(badHost.stderr).toContain('invalid value for --host');
    const badLimit = spawnSync(process.execPath, [CLI], {
      encoding: 'utf8',
      env: { ...process.env, CYRNEL_MAX_STDOUT_BYTES: '0' },
    });
    expect(badLimit.status).toBe(2);
    expect(badLimit.stderr).toContain('CYRNEL_MAX_STDOUT_BYTES');
  });

  it('keeps its database in the SQLite file --database-url names, not in the data directory', async () => {
    const dir = await tempDir();
    const elsewhere = await tempDir();
    const file = join(elsewhere.path, 'chosen.db');
    const server = await launch(dir.path, {
      args: ['--log-level', 'info', '--database-url', `sqlite://${file}`],
    });
    launched.push(server.child);
    expect(server.lines.find((line) => line.msg === 'listening')).toMatchObject({ database: file });
    const api = apiClient(server.url, KEY);
    expect((await api('POST', '/keys', { name: 'bot', role: 'agent' })).status).toBe(201);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(join(dir.path, 'data.db'))).toBe(false);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const store = await openSqliteStore({ filename: file });
    expect(await store.keys.count()).toBe(1);
    await store.close();
    await dir.remove();
    await elsewhere.remove();
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

  it('binds 0.0.0.0 without a key with --insecure, announces readiness at --log-level warn, and applies limit variables', async () => {
    const dir = await tempDir();
    const server = await launch(dir.path, {
      args: ['--host', '0.0.0.0', '--insecure', '--log-level', 'warn'],
      env: { CYRNEL_API_KEY: '', CYRNEL_MAX_CODE_BYTES: '64' },
    });
    launched.push(server.child);
    expect(server.lines.find((line) => line.msg === 'listening')).toMatchObject({
      level: 'info',
      url: expect.stringMatching(/^http:\/\/0\.0\.0\.0:\d+$/),
      dataDir: dir.path,
    });
    const api = apiClient(server.url.replace('0.0.0.0', '127.0.0.1'));
    expect((await api('GET', '/services')).status).toBe(200);
    const tooLong = await api('POST', '/processes', { code: `// ${'x'.repeat(64)}` });
    expect({ status: tooLong.status, code: tooLong.body.code }).toEqual({
      status: 413,
      code: 'payload_too_large',
    });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // Below warn: no access-log lines, no shutdown chatter; the announcement is the one info line.
    expect(server.lines.filter((line) => line.level === 'info').map((line) => line.msg)).toEqual([
      'listening',
    ]);
    expect(server.lines.map((line) => line.level)).not.toContain('debug');
    await dir.remove();
  });

  it('shuts down gracefully on a Ctrl-C and exits at once on a second one', async () => {
    const dir = await tempDir();
    const server = await launch(dir.path, {
      detached: true,
      env: {
        CYRNEL_SHUTDOWN_TIMEOUT_MS: '60000',
        CYRNEL_DOWNLOAD_TIMEOUT_MS: '60000',
        CYRNEL_URL_ALLOW_CIDRS: '127.0.0.1/32',
      },
    });
    launched.push(server.child);
    const api = apiClient(server.url, KEY);
    // A download that never finishes keeps the shutdown waiting (60 s grace).
    const stalled = api('POST', '/services', {
      id: 'stalled',
      adapter: 'openapi',
      url: `${upstream.url}/stall`,
    }).then(
      (response) => response,
      (error: unknown) => error,
    );
    await upstream.arrived('/stall');
    // Like a terminal: the signal goes to the whole process group.
    process.kill(-(server.child.pid as number), 'SIGINT');
    await logged(server.lines, 'waiting for requests in flight');
    expect(server.child.exitCode).toBeNull();
    process.kill(-(server.child.pid as number), 'SIGINT');
    expect(await server.exited).toBe(130);
    expect(server.lines.filter((line) => line.msg === 'shutdown requested')).toEqual([
      expect.objectContaining({ signal: 'SIGINT', decision: 'stop' }),
      expect.objectContaining({ signal: 'SIGINT', decision: 'force' }),
    ]);
    expect(server.lines.map((line) => line.msg)).toContain('forced exit: second signal during shutdown');
    expect(server.lines.map((line) => line.msg)).not.toContain('stopped');
    // Its client loses the connection: the forced exit answers nothing.
    expect(await stalled).toBeInstanceOf(Error);
    await dir.remove();
  });

  it('gives a running process its grace on a Ctrl-C to the whole process group', async () => {
    const dir = await tempDir();
    const server = await launch(dir.path, { detached: true, env: { CYRNEL_SHUTDOWN_TIMEOUT_MS: '20000' } });
    launched.push(server.child);
    const api = apiClient(server.url, KEY);
    // A first run warms a sandbox process, then the one the shutdown has to wait for.
    expect((await api('POST', '/processes', { code: 'cyrnel.output({})', wait: true })).status).toBe(201);
    const slow = api('POST', '/processes', {
      code: 'await new Promise((r) => setTimeout(r, 1500)); cyrnel.output({ finished: true });',
      wait: true,
    });
    await sleep(300);
    // Like a terminal: the signal goes to the whole process group (the sandbox processes have a
    // group of their own).
    process.kill(-(server.child.pid as number), 'SIGINT');
    const response = await slow;
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ exitState: 'success', output: { finished: true } });
    expect(await server.exited).toBe(0);
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
    const first = await launch(dir.path, { env: { CYRNEL_SHUTDOWN_TIMEOUT_MS: '1000' } });
    launched.push(first.child);
    const listening = first.lines.find((line) => line.msg === 'listening');
    expect(listening).toMatchObject({ url: first.url, dataDir: dir.path });
    // One process, on Node's startup snapshot: only the sandbox children need --no-node-snapshot.
    expect(listening?.pid).toBe(first.child.pid);
    const cmdline = await readFile(`/proc/${listening?.pid}/cmdline`, 'utf8');
    expect(cmdline.split('\0')).not.toContain('--no-node-snapshot');
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
