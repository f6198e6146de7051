import { type ChildProcess, spawn } from 'node:child_process';

/** A scenario of the MCP conformance suite with its servers running, started by the suite's interactive mode. */
export interface ConformanceScenario {
  /** The MCP server's URL (behind its authorization server, for the `auth/*` scenarios). */
  readonly serverUrl: string;
  /** Stops the servers and answers the suite's checks (id and status) of what the client did. */
  stop(): Promise<{ id: string; status: string; description: string }[]>;
}

/**
 * Start client scenario `name` (`auth/metadata-default`) of the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`; `suite` is the path of its CLI, `dist/index.js`, which the
 * caller resolves from its own dependencies) and wait for its server URL: real MCP servers behind
 * real authorization servers, for tests of MCP clients.
 *
 * @example
 * ```ts
 * const suite = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');
 * const scenario = await startConformanceScenario(suite, 'auth/basic-dcr');
 * // … connect a client to scenario.serverUrl …
 * const checks = await scenario.stop(); // [{ id, status: 'SUCCESS', description }, …]
 * ```
 */
export async function startConformanceScenario(suite: string, name: string): Promise<ConformanceScenario> {
  const child: ChildProcess = spawn(process.execPath, [suite, 'client', '--scenario', name, '--verbose'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const serverUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`scenario ${name} did not start: ${output}`)), 60_000);
    child.stdout?.on('data', () => {
      const match = output.match(/Server URL: (\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.on('exit', () => reject(new Error(`scenario ${name} exited: ${output}`)));
  });
  return {
    serverUrl,
    async stop() {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      const text = output.slice(output.indexOf('Checks:') + 'Checks:'.length);
      return JSON.parse(text.slice(0, text.lastIndexOf(']') + 1));
    },
  };
}
