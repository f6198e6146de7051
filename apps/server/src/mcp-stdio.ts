import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createClient } from '@cyrnel/client';
import {
  createClientBackend,
  createHostBackend,
  type McpBackend,
  type McpTasksOptions,
  serveCyrnelStdio,
} from '@cyrnel/mcp';
import { version } from '../package.json';
import { createLogger, type ServerLogger } from './create-logger';
import { serveToolsStdio, type ToolsStdioTarget } from './mcp-tools-stdio';
import { ConfigError, parseServerConfig } from './server-config';
import { SERVER_SETTINGS } from './server-flags';
import { startTracing } from './telemetry';

const { host, port, dataDir } = SERVER_SETTINGS;
/** The server `cyrnel-server mcp` reaches without `--url`: one started with the default flags. */
const DEFAULT_URL = `http://${host.default}:${port.default}`;

/** The variables the embedded host reads, as the server reads them (nothing else of the server's). */
const EMBEDDED_VARIABLES = [
  dataDir.env,
  SERVER_SETTINGS.secretsKey.env,
  SERVER_SETTINGS.secretsPreviousKeys.env,
  SERVER_SETTINGS.otel.env,
  SERVER_SETTINGS.otelArgumentShapes.env,
];

/** `cyrnel-server mcp --help`. */
export const MCP_HELP = `Usage: cyrnel-server mcp [--tools] [--url <url>] [--api-key <key>] | --embedded [--data-dir <dir>]

Speak MCP (cyrnel's code mode) on stdin/stdout, for clients that start a command (Claude Desktop).
Logs go to stderr; the process exits when stdin closes.

  --tools            direct tools instead: each tool the key may call as an MCP tool of its own
                     (<service>__<tool>), for clients that run their own code (the server's /mcp/tools)

  --url <url>        a running cyrnel server (CYRNEL_URL; default ${DEFAULT_URL})
  --api-key <key>    its API key, an agent key is enough (CYRNEL_API_KEY)
  --embedded         no server: run the host itself on the data directory (not while a server uses it)
  --data-dir <dir>   with --embedded (${dataDir.env}; default ${dataDir.shownDefault?.replaceAll('`', '')})

With --embedded, ${SERVER_SETTINGS.otel.env} (or the OTEL_* variables) traces the runs as the server does,
continuing a client's _meta.traceparent; a bridge to a server hands that on to the server.
`;

/** Run the stdio bridge; answers the exit code. */
export async function runMcpStdio(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let values: {
    url?: string;
    'api-key'?: string;
    'data-dir'?: string;
    embedded?: boolean;
    tools?: boolean;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        url: { type: 'string' },
        'api-key': { type: 'string' },
        'data-dir': { type: 'string' },
        embedded: { type: 'boolean' },
        tools: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`cyrnel-server mcp: ${(error as Error).message}\n${MCP_HELP}`);
    return 2;
  }
  if (values.help) {
    // Asked for: on stdout like every --help (no protocol runs).
    process.stdout.write(MCP_HELP);
    return 0;
  }
  // stdout carries the protocol: every log line goes to stderr.
  const logger = createLogger({
    level: (env.CYRNEL_LOG_LEVEL as 'info' | undefined) ?? 'warn',
    pretty: false,
    write: (line) => process.stderr.write(line),
  });
  let backend: McpBackend;
  let serverUrl: string | undefined;
  let tasks: McpTasksOptions;
  let tools: ToolsStdioTarget;
  let close = async () => {};
  if (values.embedded) {
    let embedded: Awaited<ReturnType<typeof embeddedHost>>;
    try {
      embedded = await embeddedHost(values['data-dir'], env, logger);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      process.stderr.write(`cyrnel-server mcp: ${error.message}\n`);
      return 2;
    }
    // The embedded host is its user's own: they decide its approvals when the client asks them.
    backend = createHostBackend({ host: embedded.host, approver: { keyId: null } });
    tools = { host: embedded.host };
    // Task ids sealed as the server seals them: a bridge started again still finds its tasks.
    tasks = { idKey: embedded.mcpStateKey, ttlMs: embedded.retentionMs };
    close = async () => {
      await embedded.closeHost({ graceMs: 0 });
      await embedded.closeStore();
      await embedded.closeTracing();
    };
  } else {
    const baseUrl = values.url ?? env.CYRNEL_URL ?? DEFAULT_URL;
    const apiKey = values['api-key'] ?? env.CYRNEL_API_KEY;
    backend = createClientBackend(createClient({ baseUrl, ...(apiKey ? { apiKey } : {}) }));
    serverUrl = baseUrl;
    // Every bridge of this key to this server seals task ids alike, so a task outlives a restart
    // of the bridge; ownership is the server's to check, the key only scopes the ids.
    tasks = {
      idKey: createHash('sha256')
        .update(`cyrnel mcp task ids\u0000${baseUrl}\u0000${apiKey ?? ''}`)
        .digest(),
    };
    tools = { url: baseUrl, apiKey };
  }
  try {
    if (values.tools) await serveToolsStdio(tools, { version, logger });
    else
      await serveCyrnelStdio(backend, {
        version,
        ...(serverUrl === undefined ? {} : { serverUrl }),
        tasks,
        onerror: (error) => logger.error('mcp error', { error: error.message }),
      });
  } finally {
    await close();
  }
  return 0;
}

/**
 * The host of `--embedded`: the server's own composition with the server's defaults, on the data
 * directory and secrets keys given (read and refused as the server reads them).
 */
async function embeddedHost(dataDirFlag: string | undefined, env: NodeJS.ProcessEnv, logger: ServerLogger) {
  const parsed = parseServerConfig(
    dataDirFlag === undefined ? [] : [`--${dataDir.flag}=${dataDirFlag}`],
    Object.fromEntries(EMBEDDED_VARIABLES.map((name) => [name, env[name]])),
  );
  if (parsed.action !== 'run') throw new Error('unreachable: no --help or --version was given');
  // Loaded only now, so the bridge to a remote server never loads the database or isolated-vm.
  const { composeHost } = await import('./compose-host');
  const { processRetention, otel, otelArgumentShapes, hostId } = parsed.config;
  // Traces of the embedded runs, as the server's (the client's `_meta.traceparent` continued).
  const tracing = await startTracing({
    endpoint: otel,
    argumentShapes: otelArgumentShapes,
    hostId,
    version,
    logger: logger.child({ component: 'tracing' }),
    env,
  });
  try {
    const composed = await composeHost({
      config: parsed.config,
      logger,
      ...(tracing ? { tracing: tracing.options } : {}),
    });
    return {
      ...composed,
      retentionMs: processRetention > 0 ? processRetention : null,
      closeTracing: async () => {
        await tracing?.close();
      },
    };
  } catch (error) {
    await tracing?.close();
    throw error;
  }
}
