import { MAX_JSON_DEPTH, MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';

/** How a flag's value is parsed. */
export type FlagKind = 'string' | 'host' | 'port' | 'positiveInteger' | 'boolean' | 'list' | 'logLevel';

/** One command-line flag with its environment variable. */
export interface FlagSpec {
  /** Long flag name without dashes, e.g. `port`. */
  readonly flag: string;
  /** Environment variable, e.g. `CYRNEL_PORT`. */
  readonly env: string;
  /** Value type. */
  readonly kind: FlagKind;
  /** One-line help. */
  readonly help: string;
  /** Default as shown in `--help`. */
  readonly shownDefault?: string;
  /** Smallest value of a `positiveInteger` flag (default 1). */
  readonly min?: number;
  /** Largest value of a `positiveInteger` flag (default `Number.MAX_SAFE_INTEGER`). */
  readonly max?: number;
}

/** Every flag of `cyrnel-server`, in `--help` order. */
export const SERVER_FLAGS: readonly FlagSpec[] = [
  {
    flag: 'port',
    env: 'CYRNEL_PORT',
    kind: 'port',
    help: 'TCP port to listen on (0 = any free port)',
    shownDefault: '9371',
  },
  {
    flag: 'host',
    env: 'CYRNEL_HOST',
    kind: 'host',
    help: 'address to bind (an IP address or a host name)',
    shownDefault: '127.0.0.1',
  },
  {
    flag: 'data-dir',
    env: 'CYRNEL_DATA_DIR',
    kind: 'string',
    help: 'data directory (database, modules/, secrets.key)',
    shownDefault: '~/.cyrnel',
  },
  {
    flag: 'database-url',
    env: 'CYRNEL_DATABASE_URL',
    kind: 'string',
    help: 'the store: sqlite:<path>, file:<path> or postgres://user:password@host:5432/database',
    shownDefault: 'sqlite:<data-dir>/data.db',
  },
  {
    flag: 'api-key',
    env: 'CYRNEL_API_KEY',
    kind: 'string',
    help: 'require Authorization: Bearer <key> on every route but /health',
  },
  {
    flag: 'no-ui',
    env: 'CYRNEL_NO_UI',
    kind: 'boolean',
    help: 'do not serve the admin web UI at /ui',
    shownDefault: 'false',
  },
  {
    flag: 'host-id',
    env: 'CYRNEL_HOST_ID',
    kind: 'string',
    help: 'this host among several on one database: stable across restarts, unique per host',
    shownDefault: '<machine name>-<hash of the data directory>',
  },
  {
    flag: 'host-slots',
    env: 'CYRNEL_HOST_SLOTS',
    kind: 'positiveInteger',
    help: 'processes this host holds at once before it leaves new ones in the shared queue for another host',
    shownDefault: '32',
  },
  {
    flag: 'no-direct-tool-calls',
    env: 'CYRNEL_NO_DIRECT_TOOL_CALLS',
    kind: 'boolean',
    help: 'send every tool call through the server process (sandbox processes then hold no service secrets)',
    shownDefault: 'false',
  },
  {
    flag: 'insecure',
    env: 'CYRNEL_INSECURE',
    kind: 'boolean',
    help: 'allow binding a non-loopback address without an API key',
    shownDefault: 'false',
  },
  {
    flag: 'secrets-key',
    env: 'CYRNEL_SECRETS_KEY',
    kind: 'string',
    help: 'base64 of 32 bytes encrypting secrets at rest',
    shownDefault: 'generated <data-dir>/secrets.key',
  },
  {
    flag: 'secrets-previous-keys',
    env: 'CYRNEL_SECRETS_PREVIOUS_KEYS',
    kind: 'list',
    help: 'comma-separated older keys that still decrypt',
  },
  {
    flag: 'log-level',
    env: 'CYRNEL_LOG_LEVEL',
    kind: 'logLevel',
    help: 'debug, info, warn, error or silent',
    shownDefault: 'info',
  },
  {
    flag: 'max-body-bytes',
    env: 'CYRNEL_MAX_BODY_BYTES',
    kind: 'positiveInteger',
    help: 'largest request body',
    shownDefault: '67108864',
  },
  {
    flag: 'max-json-depth',
    env: 'CYRNEL_MAX_JSON_DEPTH',
    kind: 'positiveInteger',
    help: 'deepest nesting of arrays and objects in a JSON body (400 beyond)',
    shownDefault: String(MAX_JSON_DEPTH),
    max: 10_000,
  },
  {
    flag: 'max-json-elements',
    env: 'CYRNEL_MAX_JSON_ELEMENTS',
    kind: 'positiveInteger',
    help: 'most arrays, objects and values in a JSON body (400 beyond; parsing more would hold the event loop)',
    shownDefault: '50000',
  },
  {
    flag: 'max-definition-bytes',
    env: 'CYRNEL_MAX_DEFINITION_BYTES',
    kind: 'positiveInteger',
    help: 'largest definition downloaded by install/update by URL',
    shownDefault: '67108864',
  },
  {
    flag: 'download-timeout-ms',
    env: 'CYRNEL_DOWNLOAD_TIMEOUT_MS',
    kind: 'positiveInteger',
    help: 'deadline of a definition download (504 beyond)',
    shownDefault: '30000',
    max: MAX_TIMER_DELAY_MS,
  },
  {
    flag: 'max-code-bytes',
    env: 'CYRNEL_MAX_CODE_BYTES',
    kind: 'positiveInteger',
    help: 'largest process code in UTF-8 bytes (413 beyond)',
    shownDefault: '102400',
  },
  {
    flag: 'max-stdout-bytes',
    env: 'CYRNEL_MAX_STDOUT_BYTES',
    kind: 'positiveInteger',
    help: 'stdout kept per process, then truncated with a marker',
    shownDefault: '1048576',
  },
  {
    flag: 'max-stderr-bytes',
    env: 'CYRNEL_MAX_STDERR_BYTES',
    kind: 'positiveInteger',
    help: 'stderr kept per process, then truncated with a marker',
    shownDefault: '1048576',
  },
  {
    flag: 'max-output-bytes',
    env: 'CYRNEL_MAX_OUTPUT_BYTES',
    kind: 'positiveInteger',
    help: 'largest merged output JSON of a process (cyrnel.output throws beyond)',
    shownDefault: '4194304',
    min: 2,
  },
  {
    flag: 'max-env-config-bytes',
    env: 'CYRNEL_MAX_ENV_CONFIG_BYTES',
    kind: 'positiveInteger',
    help: 'largest envConfig of a process, in bytes of its JSON (413 beyond)',
    shownDefault: '65536',
    min: 2,
  },
  {
    flag: 'max-live-processes',
    env: 'CYRNEL_MAX_LIVE_PROCESSES',
    kind: 'positiveInteger',
    help: 'queued + running + terminating processes before 429',
    shownDefault: '1000',
  },
  {
    flag: 'max-processes-per-key',
    env: 'CYRNEL_MAX_PROCESSES_PER_KEY',
    kind: 'positiveInteger',
    help: 'live processes one stored API key may have before 429',
    shownDefault: '100',
  },
  {
    flag: 'max-timeout-ms',
    env: 'CYRNEL_MAX_TIMEOUT_MS',
    kind: 'positiveInteger',
    help: 'largest timeoutMs a process may ask for (400 beyond)',
    shownDefault: '300000',
    max: MAX_TIMER_DELAY_MS,
  },
  {
    flag: 'max-event-streams',
    env: 'CYRNEL_MAX_EVENT_STREAMS',
    kind: 'positiveInteger',
    help: 'process event streams open at once (429 beyond)',
    shownDefault: '256',
  },
  {
    flag: 'max-event-queue-bytes',
    env: 'CYRNEL_MAX_EVENT_QUEUE_BYTES',
    kind: 'positiveInteger',
    help: 'unsent event JSON one event stream may hold before it is dropped',
    shownDefault: '33554432',
  },
  {
    flag: 'max-event-buffer-bytes',
    env: 'CYRNEL_MAX_EVENT_BUFFER_BYTES',
    kind: 'positiveInteger',
    help: 'unsent event JSON all event streams together may hold',
    shownDefault: '268435456',
  },
  {
    flag: 'shutdown-timeout-ms',
    env: 'CYRNEL_SHUTDOWN_TIMEOUT_MS',
    kind: 'positiveInteger',
    help: 'grace given to requests and running processes on SIGINT/SIGTERM',
    shownDefault: '10000',
    max: MAX_TIMER_DELAY_MS,
  },
  {
    flag: 'allowed-hosts',
    env: 'CYRNEL_ALLOWED_HOSTS',
    kind: 'list',
    help: 'comma-separated DNS names accepted in Host besides IPs and localhost (.example.com = its subdomains too, * = any)',
  },
  {
    flag: 'allowed-origins',
    env: 'CYRNEL_ALLOWED_ORIGINS',
    kind: 'list',
    help: 'comma-separated browser origins (https://ui.example.com, * = any) allowed to send state-changing requests',
  },
  {
    flag: 'registries',
    env: 'CYRNEL_REGISTRIES',
    kind: 'list',
    help: 'comma-separated registry URLs (base URLs or registry.json URLs) for POST /services/install by name and /registries',
  },
  {
    flag: 'npm-registry',
    env: 'CYRNEL_NPM_REGISTRY',
    kind: 'string',
    help: 'npm registry modules are installed from by package name (POST /modules/install)',
    shownDefault: 'https://registry.npmjs.org',
  },
  {
    flag: 'auto-update-interval-ms',
    env: 'CYRNEL_AUTO_UPDATE_INTERVAL_MS',
    kind: 'positiveInteger',
    help: 'update auto-update modules and registry-installed services this often (default: never)',
    max: MAX_TIMER_DELAY_MS,
  },
  {
    flag: 'allow-private-urls',
    env: 'CYRNEL_ALLOW_PRIVATE_URLS',
    kind: 'boolean',
    help: "let definition downloads and tool calls reach private/loopback addresses (never cyrnel's own port)",
    shownDefault: 'false',
  },
  {
    flag: 'url-allow-cidrs',
    env: 'CYRNEL_URL_ALLOW_CIDRS',
    kind: 'list',
    help: 'comma-separated CIDR blocks downloads and tool calls may reach even if private',
  },
  {
    flag: 'url-deny-cidrs',
    env: 'CYRNEL_URL_DENY_CIDRS',
    kind: 'list',
    help: 'comma-separated CIDR blocks downloads and tool calls may never reach (wins)',
  },
];

/** The `--help` text: usage plus every flag with its environment variable and default. */
export function helpText(): string {
  const rows = SERVER_FLAGS.map((spec) => {
    const value = spec.kind === 'boolean' ? '' : ' <value>';
    const left = `  --${spec.flag}${value}`;
    const fallback = spec.shownDefault ? ` (default ${spec.shownDefault})` : '';
    return `${left.padEnd(34)} ${spec.env.padEnd(30)} ${spec.help}${fallback}`;
  });
  return [
    'Usage: cyrnel-server [flags]',
    '       cyrnel-server mcp [--url <url>] [--api-key <key>] | --embedded [--data-dir <dir>]',
    '       cyrnel-server module init <dir> --type adapter|environment [--id <id>]',
    '',
    'Starts the cyrnel server. Every flag can also be set with its CYRNEL_* environment',
    'variable; a flag wins over the variable. Prefer the variables for keys (flags show in ps).',
    '',
    `  ${'flag'.padEnd(32)} ${'variable'.padEnd(30)} meaning`,
    ...rows,
    `  ${'--help'.padEnd(32)} ${''.padEnd(30)} show this help`,
    `  ${'--version'.padEnd(32)} ${''.padEnd(30)} print the version`,
    '',
    'cyrnel-server mcp speaks MCP on stdin/stdout (cyrnel-server mcp --help); the server itself',
    'serves MCP over Streamable HTTP at /mcp.',
    '',
  ].join('\n');
}
