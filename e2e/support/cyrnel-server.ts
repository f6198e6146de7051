import { fileURLToPath } from 'node:url';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import { freePort } from './free-port';
import { answers, type Program, startProgram } from './program';

const CLI = fileURLToPath(new URL('../../apps/server/dist/cli.js', import.meta.url));

/** The real server binary from the build, on a free port of 127.0.0.1. */
export interface CyrnelServer {
  /** Base URL. */
  readonly url: string;
  /** Its port (to restart on the same address). */
  readonly port: number;
  /** A client for it. */
  readonly client: CyrnelClient;
  /** The process. */
  readonly program: Program;
}

/**
 * Start `apps/server/dist/cli.js` on `dataDir`, every tool call allowed unless `env` sets
 * `CYRNEL_DEFAULT_POLICY`, as a user runs it (`node cli.js`: one process, so a signal, SIGKILL
 * included, reaches the server itself).
 * `port` reuses an address (a restart that clients reconnect to); default: a free one. `args` are
 * more flags, e.g. `['--public-url', url]`.
 */
export async function startCyrnel(
  dataDir: string,
  env: Record<string, string> = {},
  port?: number,
  args: readonly string[] = [],
): Promise<CyrnelServer> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const program = await startProgram({
    name: 'cyrnel-server',
    command: process.execPath,
    args: [CLI, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir, ...args],
    // Every tool call allowed (`--default-policy allow`): out of the box a tool that is not read-only
    // asks a person first, and these tests of other features would wait for an approval nobody
    // gives. A test of the policies passes its own `CYRNEL_DEFAULT_POLICY`.
    env: {
      CYRNEL_ALLOW_PRIVATE_URLS: 'true',
      CYRNEL_LOG_LEVEL: 'info',
      CYRNEL_DEFAULT_POLICY: 'allow',
      ...env,
    },
    ready: answers(`${url}/health`),
  });
  return { url, port, client: createClient({ baseUrl: url }), program };
}
