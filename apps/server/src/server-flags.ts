import { createHash } from 'node:crypto';
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_HOST_SLOTS,
  DEFAULT_NPM_REGISTRY,
  DEFAULT_POLICY,
  type DefaultPolicy,
  parseDefaultPolicy,
} from '@cyrnel/core';
import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';
import { LOG_LEVELS } from './create-logger';
import { defaultDatabase } from './database-url';
import { isHostPattern, isHttpUrl, isOrigin, isSecretsKey } from './flag-checks';
import {
  databaseUrlFlag,
  type FlagSpec,
  hostFlag,
  integerFlag,
  listFlag,
  logLevelFlag,
  pathFlag,
  portFlag,
  switchFlag,
  textFlag,
} from './flag-spec';
import { LIMITS_SETTINGS } from './server-flags-limits';
import { NETWORK_SETTINGS } from './server-flags-network';
import { OBSERVABILITY_SETTINGS } from './server-flags-observability';
import { SANDBOX_SETTINGS } from './server-flags-sandbox';
import { TELEMETRY_SETTINGS } from './server-flags-telemetry';

/** The data directory when none is given: `~/.cyrnel`. */
export function homeDataDir(): string {
  return join(homedir(), '.cyrnel');
}

/** A host id that survives restarts and differs between hosts: the machine and the data directory. */
export function defaultHostId(dataDir: string): string {
  return `${hostname()}-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 8)}`;
}

/** The first item `isGood` refuses, in the words of `why`. */
const everyItem =
  (isGood: (item: string) => boolean, why: (item: string) => string) =>
  (items: readonly string[]): string | undefined => {
    const bad = items.find((item) => !isGood(item));
    return bad === undefined ? undefined : why(bad);
  };

/**
 * Every setting of `cyrnel-server`, keyed by its {@link ServerConfig} field, in `--help` order:
 * the one place its flag, variable, default, bounds and help are written. The defaults that are
 * the core's (process limits, host slots) are the core's own constants.
 */
export const SERVER_SETTINGS = {
  port: portFlag({
    flag: 'port',
    env: 'CYRNEL_PORT',
    help: 'TCP port to listen on (0 = any free port)',
    default: 9371,
  }),
  host: hostFlag({
    flag: 'host',
    env: 'CYRNEL_HOST',
    help: 'address to bind: an IP address (`[::1]` is unwrapped) or an RFC 1123 host name',
    details: 'a non-loopback one needs `--api-key`, a key stored in the database, or `--insecure`',
    default: '127.0.0.1',
  }),
  dataDir: pathFlag({
    flag: 'data-dir',
    env: 'CYRNEL_DATA_DIR',
    help: 'data directory (the database, `modules/`, `secrets.key`)',
    default: homeDataDir,
    shownDefault: '`~/.cyrnel`',
  }),
  database: databaseUrlFlag({
    flag: 'database-url',
    env: 'CYRNEL_DATABASE_URL',
    help: 'the store: `sqlite:<path>`, `file:<path>` or `postgres://user:password@host:5432/database`',
    details: 'PostgreSQL needs the secrets key from the environment (see *Database*)',
    default: ({ dataDir }) => defaultDatabase(dataDir),
    shownDefault: '`sqlite:<data-dir>/data.db`',
  }),
  apiKey: textFlag({
    flag: 'api-key',
    env: 'CYRNEL_API_KEY',
    help: 'the bootstrap admin key: `Authorization: Bearer <key>` on every route but `/health`',
    details: 'never stored (see *API keys*)',
    default: undefined,
  }),
  noUi: switchFlag({
    flag: 'no-ui',
    env: 'CYRNEL_NO_UI',
    help: 'do not serve the admin web UI at `/ui`',
  }),
  hostId: textFlag({
    flag: 'host-id',
    env: 'CYRNEL_HOST_ID',
    help: 'this host among several on one database: stable across restarts, unique per host',
    details: 'see *Running several hosts*',
    default: ({ dataDir }) => defaultHostId(dataDir),
    shownDefault: '`<machine name>-<hash of the data directory>`',
  }),
  hostSlots: integerFlag({
    flag: 'host-slots',
    env: 'CYRNEL_HOST_SLOTS',
    help: 'processes this host holds at once (queued with its environment or running) before it leaves new ones in the shared queue for another host',
    default: DEFAULT_HOST_SLOTS,
  }),
  noDirectToolCalls: switchFlag({
    flag: 'no-direct-tool-calls',
    env: 'CYRNEL_NO_DIRECT_TOOL_CALLS',
    help: "send every tool call from sandbox processes through the server's gate first, instead of straight to the egress gateway's workers (which make portable adapters' calls either way)",
    details: 'see `@cyrnel/env-typescript-ivm`, *Tool calls through the egress gateway*',
  }),
  egressWorkers: integerFlag({
    flag: 'egress-workers',
    env: 'CYRNEL_EGRESS_WORKERS',
    help: "worker threads of the egress gateway, which hold portable adapters' credentials, make their calls and bound their answers off the main thread",
    default: 2,
    max: 64,
  }),
  egressAnswerBytes: integerFlag({
    flag: 'egress-answer-bytes',
    env: 'CYRNEL_EGRESS_ANSWER_BYTES',
    help: "bytes of one tool answer's JSON text; a larger answer fails that call with `upstream_answer_too_large`",
    default: 64 * 1024 * 1024,
  }),
  insecure: switchFlag({
    flag: 'insecure',
    env: 'CYRNEL_INSECURE',
    help: 'allow a non-loopback bind without any key',
  }),
  secretsKey: textFlag({
    flag: 'secrets-key',
    env: 'CYRNEL_SECRETS_KEY',
    help: 'base64 of 32 bytes, encrypts secrets at rest',
    default: undefined,
    shownDefault: 'generated `<data-dir>/secrets.key`',
    check: (key) => (isSecretsKey(key) ? undefined : 'must be base64 of 32 bytes'),
  }),
  secretsPreviousKeys: listFlag({
    flag: 'secrets-previous-keys',
    env: 'CYRNEL_SECRETS_PREVIOUS_KEYS',
    help: 'comma-separated older keys that still decrypt (rotation)',
    // Never name the refused item: it is a key.
    check: (keys) => (keys.every(isSecretsKey) ? undefined : 'every key must be base64 of 32 bytes'),
  }),
  logLevel: logLevelFlag({
    flag: 'log-level',
    env: 'CYRNEL_LOG_LEVEL',
    help: LOG_LEVELS.map((level) => `\`${level}\``).join(', '),
    default: 'info',
  }),
  defaultPolicy: textFlag({
    flag: 'default-policy',
    env: 'CYRNEL_DEFAULT_POLICY',
    help: 'the policy of every tool no rule of its service decides: `allow`, `ask` or `block`, or comma-separated `default=<policy>` and `<annotation>=<policy>` pairs (annotations `readOnly`, `destructive`, `idempotent`, `openWorld`; the strictest match wins)',
    details:
      'e.g. `default=ask,readOnly=allow,destructive=block`; `ask` makes a program wait at the call until a person decides (see *Policies and approvals*)',
    default: policyText(DEFAULT_POLICY),
    check: checkDefaultPolicy,
  }),
  approvalTimeoutMs: integerFlag({
    flag: 'approval-timeout',
    env: 'CYRNEL_APPROVAL_TIMEOUT',
    help: 'milliseconds an approval waits for a person; undecided, it expires and the call fails with `approval_expired`',
    default: DEFAULT_APPROVAL_TIMEOUT_MS,
    max: MAX_TIMER_DELAY_MS,
  }),
  // What one request, one process, one key and the whole server may take.
  ...LIMITS_SETTINGS,
  allowedHosts: listFlag({
    flag: 'allowed-hosts',
    env: 'CYRNEL_ALLOWED_HOSTS',
    help: 'comma-separated DNS names accepted in `Host` besides IP literals, `localhost` and `*.localhost` (`.example.com` = the domain and its subdomains, `*` = any)',
    details: 'others get 403 (DNS rebinding)',
    check: everyItem(
      (item) => item === '*' || isHostPattern(item),
      (bad) => `"${bad}" is not a host name, .domain or *`,
    ),
  }),
  allowedOrigins: listFlag({
    flag: 'allowed-origins',
    env: 'CYRNEL_ALLOWED_ORIGINS',
    help: 'comma-separated browser origins (`https://ui.example.com`, `*` = any) allowed to send state-changing requests from another site, and answered with CORS on `/mcp`',
    details: 'others get 403 and no CORS header',
    check: everyItem(
      (item) => item === '*' || isOrigin(item),
      (bad) => `"${bad}" is not an origin like https://ui.example.com or *`,
    ),
  }),
  registries: listFlag({
    flag: 'registries',
    env: 'CYRNEL_REGISTRIES',
    help: "comma-separated registry URLs (a base URL, whose `/.well-known/registry.json` is read, or a metadata document's URL)",
    details:
      '`POST /services/install {source: "<name>"}` looks names up in them, in order; `GET /registries` lists them',
    check: everyItem(isHttpUrl, (bad) => `"${bad}" is not an http(s) URL`),
  }),
  npmRegistry: textFlag({
    flag: 'npm-registry',
    env: 'CYRNEL_NPM_REGISTRY',
    help: 'the npm registry `POST /modules/install` fetches packages from',
    default: DEFAULT_NPM_REGISTRY,
    check: (url) => (isHttpUrl(url) ? undefined : 'must be an http(s) URL'),
  }),
  autoUpdateIntervalMs: integerFlag({
    flag: 'auto-update-interval-ms',
    env: 'CYRNEL_AUTO_UPDATE_INTERVAL_MS',
    help: 'every this many ms, update the installed modules whose `autoUpdate` is on and every registry-installed service',
    details: 'a service that was enabled is enabled again',
    default: undefined,
    shownDefault: 'never',
    max: MAX_TIMER_DELAY_MS,
  }),
  // The sandbox pool of the typescript-ivm environment.
  ...SANDBOX_SETTINGS,
  // The public URL, OAuth and where outbound connections may go.
  ...NETWORK_SETTINGS,
  // The metrics' own listener and the buffer behind /logs.
  ...OBSERVABILITY_SETTINGS,
  // OpenTelemetry traces.
  ...TELEMETRY_SETTINGS,
} as const;

/** The value type of a setting. */
type ValueOf<S> = S extends FlagSpec<infer T> ? T : never;

/**
 * Everything the server reads from flags and `CYRNEL_*` variables, validated: one field per
 * entry of {@link SERVER_SETTINGS}, of the type its reader answers.
 */
export type ServerConfig = {
  readonly [K in keyof typeof SERVER_SETTINGS]: ValueOf<(typeof SERVER_SETTINGS)[K]>;
};

/** Every flag of `cyrnel-server`, in `--help` order. */
export const SERVER_FLAGS: readonly FlagSpec[] = Object.values(SERVER_SETTINGS);

/** A server default policy as `--default-policy` writes it: `default=ask,readOnly=allow`. */
function policyText(policy: DefaultPolicy): string {
  const rules = Object.entries(policy.byAnnotation).map(([annotation, value]) => `${annotation}=${value}`);
  return [`default=${policy.default}`, ...rules].join(',');
}

/** Why core's `parseDefaultPolicy` refuses `text`, worded for the flag's own message. */
function checkDefaultPolicy(text: string): string | undefined {
  try {
    parseDefaultPolicy(text);
    return undefined;
  } catch (error) {
    // Core names the flag itself; the message of a refused flag already does.
    return (error as Error).message.replace(/^--default-policy /, '');
  }
}
