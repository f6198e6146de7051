import { spawn } from 'node:child_process';
import { userEnv } from './packed';

/** An MCP client configuration's server entry that starts a command (stdio). */
export interface StdioServerConfig {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
}

/**
 * Start `config` as an MCP client would (its command, arguments and environment over a user's
 * environment, see {@link userEnv}), initialize over stdio and list the tools: the names it
 * answers. Fails with the program's stderr when it exits first or does not answer within
 * `timeoutMs`.
 */
export async function listToolsOverStdio(config: StdioServerConfig, timeoutMs = 120_000): Promise<string[]> {
  const child = spawn(config.command, [...config.args], {
    env: { ...userEnv(), ...config.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const send = (message: Record<string, unknown>) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  try {
    return await new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${config.command}: no answer in ${timeoutMs} ms\n${stderr}`)),
        timeoutMs,
      );
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${config.command} exited with ${code}\n${stderr}`));
      });
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          let message: { id?: number; result?: { tools?: { name: string }[] }; error?: unknown };
          try {
            message = JSON.parse(line);
          } catch {
            // stdout carries only the protocol: anything else is the program's fault.
            clearTimeout(timer);
            reject(new Error(`${config.command} wrote a line that is not JSON-RPC: ${line}\n${stderr}`));
            return;
          }
          if (message.error !== undefined) {
            clearTimeout(timer);
            reject(new Error(`${config.command} answered an error: ${JSON.stringify(message.error)}`));
          } else if (message.id === 1) {
            send({ method: 'notifications/initialized' });
            send({ id: 2, method: 'tools/list', params: {} });
          } else if (message.id === 2) {
            clearTimeout(timer);
            resolve((message.result?.tools ?? []).map((tool) => tool.name));
          }
        }
      });
      send({
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'e2e', version: '1' },
        },
      });
    });
  } finally {
    child.removeAllListeners('exit');
    if (child.exitCode === null) {
      child.stdin.end();
      child.kill('SIGTERM');
    }
  }
}
