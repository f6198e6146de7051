import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@cyrnel/client';
import { loadSecretsKey } from '@cyrnel/core';
import { createClientBackend, createHostBackend, type McpBackend, serveCyrnelStdio } from '@cyrnel/mcp';
import { version } from '../package.json';
import { createLogger } from './create-logger';
import { defaultDatabase, expandHome } from './database-url';
import { prepareDataDir } from './prepare-data-dir';

/** `cyrnel-server mcp --help`. */
export const MCP_HELP = `Usage: cyrnel-server mcp [--url <url>] [--api-key <key>] | --embedded [--data-dir <dir>]

Speak MCP (cyrnel's code mode) on stdin/stdout, for clients that start a command (Claude Desktop).
Logs go to stderr; the process exits when stdin closes.

  --url <url>        a running cyrnel server (CYRNEL_URL; default http://127.0.0.1:9371)
  --api-key <key>    its API key, an agent key is enough (CYRNEL_API_KEY)
  --embedded         no server: run the host itself on the data directory (not while a server uses it)
  --data-dir <dir>   with --embedded (CYRNEL_DATA_DIR; default ~/.cyrnel)
`;

/** Run the stdio bridge; answers the exit code. */
export async function runMcpStdio(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let values: { url?: string; 'api-key'?: string; 'data-dir'?: string; embedded?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        url: { type: 'string' },
        'api-key': { type: 'string' },
        'data-dir': { type: 'string' },
        embedded: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`cyrnel-server mcp: ${(error as Error).message}\n${MCP_HELP}`);
    return 2;
  }
  if (values.help) {
    process.stderr.write(MCP_HELP);
    return 0;
  }
  // stdout carries the protocol: every log line goes to stderr.
  const logger = createLogger({
    level: (env.CYRNEL_LOG_LEVEL as 'info' | undefined) ?? 'warn',
    pretty: false,
    write: (line) => process.stderr.write(line),
  });
  let backend: McpBackend;
  let close = async () => {};
  if (values.embedded) {
    const dataDir = expandHome(values['data-dir'] ?? env.CYRNEL_DATA_DIR ?? join(homedir(), '.cyrnel'));
    await prepareDataDir(dataDir, logger);
    const secrets = loadSecretsKey({
      dataDir,
      env: {
        CYRNEL_SECRETS_KEY: env.CYRNEL_SECRETS_KEY,
        CYRNEL_SECRETS_PREVIOUS_KEYS: env.CYRNEL_SECRETS_PREVIOUS_KEYS,
      },
      logger,
    });
    const { composeHost } = await import('./compose-host');
    const { createOutboundPolicy } = await import('@cyrnel/core');
    const composed = await composeHost({
      dataDir,
      database: defaultDatabase(dataDir),
      secretsKey: secrets.key,
      secretsPreviousKeys: secrets.previousKeys,
      limits: {
        maxCodeBytes: 100 * 1024,
        maxStdoutBytes: 1024 * 1024,
        maxStderrBytes: 1024 * 1024,
        maxOutputBytes: 4 * 1024 * 1024,
        maxEnvConfigBytes: 64 * 1024,
        maxLiveProcesses: 1000,
        maxLiveProcessesPerKey: 100,
        maxTimeoutMs: 300_000,
      },
      logger,
      outbound: createOutboundPolicy({ allowPrivateUrls: false, allowCidrs: [], denyCidrs: [] }),
    });
    backend = createHostBackend({ host: composed.host });
    close = async () => {
      await composed.closeHost({ graceMs: 0 });
      await composed.closeStore();
    };
  } else {
    const baseUrl = values.url ?? env.CYRNEL_URL ?? 'http://127.0.0.1:9371';
    const apiKey = values['api-key'] ?? env.CYRNEL_API_KEY;
    backend = createClientBackend(createClient({ baseUrl, ...(apiKey ? { apiKey } : {}) }));
  }
  try {
    await serveCyrnelStdio(backend, {
      version,
      onerror: (error) => logger.error('mcp error', { error: error.message }),
    });
  } finally {
    await close();
  }
  return 0;
}
