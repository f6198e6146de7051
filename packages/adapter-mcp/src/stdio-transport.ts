import { type ChildProcess, spawn } from 'node:child_process';
import { type JSONRPCMessage, serializeMessage, type Transport } from '@modelcontextprotocol/client';
import { createMessageReader } from './message-reader';

/** Variables a started server gets from cyrnel's environment: what finding programs needs. */
export const INHERITED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TMPDIR'] as const;

/** Options of {@link createStdioTransport}. */
export interface StdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The definition's variables, added to {@link INHERITED_ENV}. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The last this many bytes of stderr are kept for error messages. Default 8 KiB. */
  readonly stderrBytes?: number;
  /** Grace between SIGTERM to the group and SIGKILL. Default 2,000 ms. */
  readonly killGraceMs?: number;
  /** Largest message line from the server. Default 16 MiB. */
  readonly maxMessageBytes?: number;
}

/** A stdio transport whose server runs in its own process group, killed whole on close. */
export interface StdioTransport extends Transport {
  /** The end of the server's stderr (bounded), for error messages. */
  stderrTail(): string;
  /** The group's id (the server's pid) while it runs. */
  readonly pid: number | undefined;
}

/**
 * The MCP stdio transport cyrnel uses instead of the SDK's, for three guarantees the SDK's does
 * not give: the server starts in a process group of its own and the whole group is killed on
 * close (a server started through `npx` is a grandchild), its environment is
 * {@link INHERITED_ENV} plus the definition's `env` and nothing else of cyrnel's (which holds the
 * secrets key and the API key), and stderr is drained into a bounded buffer instead of cyrnel's
 * own stderr. Framing is the SDK's (`serializeMessage`), read in linear time
 * ({@link createMessageReader}).
 */
export function createStdioTransport(options: StdioTransportOptions): StdioTransport {
  const stderrMax = options.stderrBytes ?? 8 * 1024;
  const killGraceMs = options.killGraceMs ?? 2_000;
  const reader = createMessageReader(options.maxMessageBytes ?? 16 * 1024 * 1024);
  let child: ChildProcess | undefined;
  let stderr = '';
  let closed = false;
  let exited: Promise<void> = Promise.resolve();

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
    stderrTail: () => stderr,
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
          if (!closed) {
            closed = true;
            transport.onerror?.(
              new Error(
                `the MCP server exited (${signal ?? `code ${code}`})${stderr ? `; its stderr ends: ${stderr.trim().slice(-500)}` : ''}`,
              ),
            );
          }
          transport.onclose?.();
        });
        started.stdin?.on('error', (error) => transport.onerror?.(error));
        started.stdout?.on('data', (chunk: Buffer) => {
          try {
            reader.append(chunk, (message) => transport.onmessage?.(message));
          } catch (error) {
            // A message past the bound (or not JSON-RPC): the server is not one to keep talking to.
            transport.onerror?.(error as Error);
            void transport.close();
          }
        });
        started.stderr?.on('data', (chunk: Buffer) => {
          stderr = (stderr + chunk.toString('utf8')).slice(-stderrMax);
        });
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
