import { type ChildProcess, spawn } from 'node:child_process';
import type { ModuleLogger } from '@cyrnel/sdk';
import { type JSONRPCMessage, serializeMessage, type Transport } from '@modelcontextprotocol/client';
import type { AnswerReader } from './answer-reader';
import { INHERITED_ENV } from './inherited-env';
import { createMessageReader } from './message-reader';
import { createStderrLog } from './stderr-log';

/** Options of {@link createStdioTransport}. */
export interface StdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The definition's variables, added to {@link INHERITED_ENV}. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Grace between SIGTERM to the group and SIGKILL. Default 2,000 ms. */
  readonly killGraceMs?: number;
  /** Largest message line from the server. Default 16 MiB. */
  readonly maxMessageBytes?: number;
  /** Reads each message: bounded, large ones off the main thread. */
  readonly answers: AnswerReader;
  /** Where the server's stderr goes (the module logger), line by line, bounded. */
  readonly logger: ModuleLogger;
  /** What the server is, in log lines: `service memory`. */
  readonly label: string;
}

/** Messages of one server read at once (in workers) before its stdout is paused. */
const MAX_READING = 4;

/** How the server process ended when nobody closed it. */
export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A stdio transport whose server runs in its own process group, killed whole on close. */
export interface StdioTransport extends Transport {
  /** Set once the server exited without being closed (a crash, a kill from outside). */
  exit(): ServerExit | undefined;
  /** The group's id (the server's pid) while it runs. */
  readonly pid: number | undefined;
}

/** The words of an exit in a short message: `code 3`, `SIGKILL`. */
export function describeExit(exit: ServerExit): string {
  return exit.signal ?? `code ${exit.code}`;
}

/**
 * The MCP stdio transport cyrnel uses instead of the SDK's, for guarantees the SDK's does not
 * give: the server starts in a process group of its own and the whole group is killed on close (a
 * server started through `npx` is a grandchild); its environment is {@link INHERITED_ENV} plus
 * the definition's `env` and nothing else of cyrnel's (which holds the secrets key and the API
 * key); its stderr goes to the server log, never into an error an agent reads (a server may print
 * its token there); and its answers are read bounded, a large one in a worker thread
 * ({@link AnswerReader}), an oversized one failing its own call while the connection stays.
 */
export function createStdioTransport(options: StdioTransportOptions): StdioTransport {
  const killGraceMs = options.killGraceMs ?? 2_000;
  const { answers } = options;
  const stderr = createStderrLog(options.logger, options.label);
  let child: ChildProcess | undefined;
  let closed = false;
  let exit: ServerExit | undefined;
  let exited: Promise<void> = Promise.resolve();

  const deliver = (message: JSONRPCMessage | undefined) => {
    if (message && !closed) transport.onmessage?.(message);
  };
  // Lines still being read: past MAX_READING the server's stdout is paused, so a server writing
  // large messages faster than the workers read them fills its own pipe, not cyrnel's memory.
  let reading = 0;
  const reader = createMessageReader(options.maxMessageBytes ?? 16 * 1024 * 1024, {
    line: (pieces, bytes) => {
      reading++;
      if (reading > MAX_READING) child?.stdout?.pause();
      answers
        .read(pieces, bytes)
        .then(deliver, (error: unknown) => transport.onerror?.(error as Error))
        .finally(() => {
          reading--;
          if (reading <= MAX_READING) child?.stdout?.resume();
        });
    },
    oversized: (head, tail, bytes) => deliver(answers.oversized(head, tail, bytes)),
  });

  const killGroup = (signal: NodeJS.Signals) => {
    const pid = child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };

  const transport: StdioTransport = {
    get pid() {
      return child?.pid;
    },
    exit: () => exit,
    async start() {
      if (child) throw new Error('the stdio transport is started already');
      const env: Record<string, string> = {};
      for (const name of INHERITED_ENV) {
        const value = process.env[name];
        if (value !== undefined) env[name] = value;
      }
      Object.assign(env, options.env);
      await new Promise<void>((resolve, reject) => {
        const started = spawn(options.command, [...options.args], {
          env,
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          stdio: ['pipe', 'pipe', 'pipe'],
          // Its own process group: the whole tree can be signalled with -pid.
          detached: true,
          shell: false,
          windowsHide: true,
        });
        child = started;
        exited = new Promise((done) => started.once('close', () => done()));
        started.once('error', (error) => {
          reject(error);
          transport.onerror?.(error);
        });
        started.once('spawn', () => resolve());
        started.once('close', (code, signal) => {
          child = undefined;
          stderr.end();
          if (!closed) {
            closed = true;
            exit = { code, signal };
            options.logger.warn('MCP server exited', { service: options.label, code, signal });
            transport.onerror?.(new Error(`the MCP server exited (${describeExit(exit)})`));
          }
          transport.onclose?.();
        });
        started.stdin?.on('error', (error) => transport.onerror?.(error));
        started.stdout?.on('data', (chunk: Buffer) => reader.append(chunk));
        started.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));
      });
    },
    async send(message: JSONRPCMessage) {
      const stdin = child?.stdin;
      if (!stdin || closed) throw new Error('the MCP server is not running');
      const line = serializeMessage(message);
      await new Promise<void>((resolve, reject) => {
        stdin.write(line, (error) => (error ? reject(error) : resolve()));
      });
    },
    async close() {
      const running = child;
      closed = true;
      if (!running) return;
      // The protocol's shutdown: close stdin, then SIGTERM the group, then SIGKILL it.
      running.stdin?.end();
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), killGraceMs);
      await exited;
      clearTimeout(timer);
      // The server is gone; what it started in its group may not be.
      if (running.pid !== undefined) {
        try {
          process.kill(-running.pid, 'SIGKILL');
        } catch {
          // Nothing left.
        }
      }
      reader.clear();
    },
  };
  return transport;
}
