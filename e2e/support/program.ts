import { type ChildProcess, spawn } from 'node:child_process';

/** Options of {@link startProgram}. */
export interface ProgramOptions {
  /** Name used in error messages. */
  name: string;
  /** Executable. */
  command: string;
  /** Arguments. */
  args: readonly string[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Working directory. */
  cwd?: string;
  /** Resolves true once the program serves; polled until `startTimeoutMs`. */
  ready: () => Promise<boolean>;
  /** Default 30000. */
  startTimeoutMs?: number;
}

/** A third-party (or our own) program the suite started and must stop. */
export interface Program {
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Its process id. */
  readonly pid: number;
  /** Send a signal to the program and wait for it to exit; resolves with the exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | string | null>;
}

/** Spawn a program and wait until `ready()` says it serves; it fails with the program's output. */
export async function startProgram(options: ProgramOptions): Promise<Program> {
  const child: ChildProcess = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal));
    child.once('error', (error) => {
      output += `\nspawn failed: ${error.message}`;
      resolve(null);
    });
  });
  let alive = true;
  void exited.then(() => {
    alive = false;
  });
  const program: Program = {
    output: () => output,
    pid: child.pid ?? -1,
    async stop(signal = 'SIGTERM') {
      if (alive) child.kill(signal);
      return exited;
    },
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (!alive) throw new Error(`${options.name} exited before it was ready:\n${output}`);
    if (await options.ready().catch(() => false)) return program;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await program.stop('SIGKILL');
  throw new Error(`${options.name} was not ready in time:\n${output}`);
}

/** A `ready` check: the URL answers at all (any status). */
export function answers(url: string): () => Promise<boolean> {
  return async () => {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return true;
  };
}
