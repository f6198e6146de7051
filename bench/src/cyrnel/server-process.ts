import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Resources } from '../harness/resources.ts';
import { descendants } from './proc-memory.ts';

/** The real cyrnel server, running as its own process from the built binary. */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly dataDir: string;
  /** The last lines the server printed (for error reports). */
  tail(): string;
  stop(): Promise<void>;
}

/** Where the built binary of @cyrnel/server is; throws with a hint when it is not built. */
export function serverBin(): string {
  const pkg = fileURLToPath(import.meta.resolve('@cyrnel/server/package.json'));
  const bin = join(dirname(pkg), 'dist', 'cli.js');
  if (!existsSync(bin))
    throw new Error(`${bin} is missing: build it with pnpm turbo run build --filter=@cyrnel/server...`);
  return bin;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Spawns `node <bin> --port <free> --data-dir <temp>`, as a user runs the server (one process),
 * and waits for /health.
 */
export async function startServerProcess(
  resources: Resources,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const bin = serverBin();
  const dataDir = await mkdtemp(join(tmpdir(), 'cyrnel-bench-'));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [bin, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir],
    {
      env: {
        ...process.env,
        CYRNEL_LOG_LEVEL: 'warn',
        CYRNEL_ALLOW_PRIVATE_URLS: 'true',
        CYRNEL_SHUTDOWN_TIMEOUT_MS: '2000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const pid = child.pid as number;
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 40) lines.splice(0, lines.length - 40);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // Sandbox children are found before the server goes, since they are re-parented after.
  let known: number[] = [];
  const killAll = () => {
    for (const p of [pid, ...known, ...descendants(pid)]) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  resources.onExit(killAll);
  const stop = resources.defer(async () => {
    known = descendants(pid);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      if (!(await exited(child, 5_000))) child.kill('SIGKILL');
      await exited(child, 2_000);
    }
    for (const p of known) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(
        `the server exited at start (${child.exitCode ?? child.signalCode}): ${lines.join(' | ')}`,
      );
    }
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not answer /health within 30 s: ${lines.join(' | ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, pid, dataDir, tail: () => lines.join('\n'), stop };
}
