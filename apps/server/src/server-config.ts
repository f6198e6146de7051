import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { parseCidr } from '@cyrnel/core';
import { MAX_JSON_DEPTH } from '@cyrnel/sdk';
import { type DatabaseTarget, defaultDatabase, expandHome, parseDatabaseUrl } from './database-url';
import { type FlagSpec, SERVER_FLAGS } from './server-flags';

/** Log levels, quietest last. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Everything the server reads from flags and `CYRNEL_*` variables, validated. */
export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** The store to open (`--database-url`; SQLite at `<dataDir>/data.db` by default). */
  readonly database: DatabaseTarget;
  readonly apiKey: string | undefined;
  readonly insecure: boolean;
  /** Do not serve the admin UI at `/ui`. */
  readonly noUi: boolean;
  /** Every tool call goes through the server process (no direct calls from sandbox processes). */
  readonly noDirectToolCalls: boolean;
  /** This host among several on one database (`--host-id`; default from the machine and data directory). */
  readonly hostId: string;
  /** Processes this host holds at once before new ones wait in the shared queue (`--host-slots`). */
  readonly hostSlots: number;
  readonly secretsKey: string | undefined;
  readonly secretsPreviousKeys: readonly string[];
  readonly logLevel: LogLevel;
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
  readonly maxJsonElements: number;
  readonly maxDefinitionBytes: number;
  readonly downloadTimeoutMs: number;
  readonly maxCodeBytes: number;
  readonly maxStdoutBytes: number;
  readonly maxStderrBytes: number;
  readonly maxOutputBytes: number;
  readonly maxEnvConfigBytes: number;
  readonly maxLiveProcesses: number;
  readonly maxProcessesPerKey: number;
  readonly maxTimeoutMs: number;
  readonly maxEventStreams: number;
  readonly maxEventQueueBytes: number;
  readonly maxEventBufferBytes: number;
  readonly shutdownTimeoutMs: number;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly allowPrivateUrls: boolean;
  readonly urlAllowCidrs: readonly string[];
  readonly urlDenyCidrs: readonly string[];
  /** Registries for installs by name and `/registries`. */
  readonly registries: readonly string[];
  /** The npm registry modules are installed from. */
  readonly npmRegistry: string;
  /** Interval of auto-updates; undefined: never. */
  readonly autoUpdateIntervalMs: number | undefined;
}

/** What the command line asked for: run with a config, or print help / the version. */
export type ParsedCommandLine =
  | { action: 'run'; config: ServerConfig }
  | { action: 'help' }
  | { action: 'version' };

/** A refused flag or variable; the binary prints the message and exits with code 2. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** `node:util` `parseArgs` options: every flag, plus `--help`/`-h` and `--version`/`-v`. */
const PARSE_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  ...Object.fromEntries(
    SERVER_FLAGS.map((spec) => [spec.flag, { type: spec.kind === 'boolean' ? 'boolean' : 'string' }]),
  ),
} satisfies ParseArgsConfig['options'];

/**
 * Parse `argv` (without node and the script) and the environment into a {@link ServerConfig}.
 * `--flag value` and `--flag=value` both work (a switch such as `--insecure` takes no separate
 * value; `--insecure=false` is allowed); a flag wins over its variable. `node:util` `parseArgs`
 * splits the arguments (non-strict, so unknown flags and a switch's `=value` reach our own
 * messages and value checks).
 */
export function parseServerConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
  const raw = new Map<string, { value: string; source: string }>();
  for (const spec of SERVER_FLAGS) {
    const value = env[spec.env];
    if (value !== undefined && value !== '') raw.set(spec.flag, { value, source: spec.env });
  }
  const { tokens } = parseArgs({ args: [...argv], options: PARSE_OPTIONS, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional')
      throw new ConfigError(`unexpected argument "${token.value}" (see --help)`);
    if (token.kind === 'option-terminator') continue;
    if (token.name === 'help') return { action: 'help' };
    if (token.name === 'version') return { action: 'version' };
    const spec = SERVER_FLAGS.find((candidate) => candidate.flag === token.name);
    if (!spec) throw new ConfigError(`unknown flag ${token.rawName} (see --help)`);
    if (token.value === undefined && spec.kind !== 'boolean')
      throw new ConfigError(`--${spec.flag} needs a value`);
    raw.set(spec.flag, { value: token.value ?? 'true', source: `--${spec.flag}` });
  }
  return { action: 'run', config: buildConfig(raw) };
}

const MIB = 1024 * 1024;

function buildConfig(raw: Map<string, { value: string; source: string }>): ServerConfig {
  const get = <T>(flag: string, fallback: T): T | string | number | boolean | string[] => {
    const entry = raw.get(flag);
    const spec = SERVER_FLAGS.find((candidate) => candidate.flag === flag) as FlagSpec;
    return entry === undefined ? fallback : parseValue(spec, entry.value, entry.source);
  };
  const dataDir = expandHome(get('data-dir', join(homedir(), '.cyrnel')) as string);
  const databaseUrl = raw.get('database-url');
  return {
    port: get('port', 9371) as number,
    host: get('host', '127.0.0.1') as string,
    dataDir,
    database: databaseUrl === undefined ? defaultDatabase(dataDir) : database(databaseUrl),
    apiKey: get('api-key', undefined) as string | undefined,
    insecure: get('insecure', false) as boolean,
    noUi: get('no-ui', false) as boolean,
    noDirectToolCalls: get('no-direct-tool-calls', false) as boolean,
    hostId: (get('host-id', undefined) as string | undefined) ?? defaultHostId(dataDir),
    hostSlots: get('host-slots', 32) as number,
    secretsKey: get('secrets-key', undefined) as string | undefined,
    secretsPreviousKeys: get('secrets-previous-keys', []) as string[],
    logLevel: get('log-level', 'info') as LogLevel,
    maxBodyBytes: get('max-body-bytes', 64 * MIB) as number,
    maxJsonDepth: get('max-json-depth', MAX_JSON_DEPTH) as number,
    maxJsonElements: get('max-json-elements', 50_000) as number,
    maxDefinitionBytes: get('max-definition-bytes', 64 * MIB) as number,
    downloadTimeoutMs: get('download-timeout-ms', 30_000) as number,
    maxCodeBytes: get('max-code-bytes', 100 * 1024) as number,
    maxStdoutBytes: get('max-stdout-bytes', MIB) as number,
    maxStderrBytes: get('max-stderr-bytes', MIB) as number,
    maxOutputBytes: get('max-output-bytes', 4 * MIB) as number,
    maxEnvConfigBytes: get('max-env-config-bytes', 64 * 1024) as number,
    maxLiveProcesses: get('max-live-processes', 1000) as number,
    maxProcessesPerKey: get('max-processes-per-key', 100) as number,
    maxTimeoutMs: get('max-timeout-ms', 300_000) as number,
    maxEventStreams: get('max-event-streams', 256) as number,
    maxEventQueueBytes: get('max-event-queue-bytes', 32 * MIB) as number,
    maxEventBufferBytes: get('max-event-buffer-bytes', 256 * MIB) as number,
    shutdownTimeoutMs: get('shutdown-timeout-ms', 10_000) as number,
    allowedHosts: get('allowed-hosts', []) as string[],
    allowedOrigins: get('allowed-origins', []) as string[],
    allowPrivateUrls: get('allow-private-urls', false) as boolean,
    urlAllowCidrs: get('url-allow-cidrs', []) as string[],
    urlDenyCidrs: get('url-deny-cidrs', []) as string[],
    registries: get('registries', []) as string[],
    npmRegistry: get('npm-registry', 'https://registry.npmjs.org') as string,
    autoUpdateIntervalMs: get('auto-update-interval-ms', undefined) as number | undefined,
  };
}

/** A host id that survives restarts and differs between hosts: the machine and the data directory. */
export function defaultHostId(dataDir: string): string {
  return `${hostname()}-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 8)}`;
}

function parseValue(spec: FlagSpec, value: string, source: string): string | number | boolean | string[] {
  const refuse = (why: string) => new ConfigError(`invalid value for ${source}: ${why}`);
  switch (spec.kind) {
    case 'string':
      if (value.trim() === '') throw refuse('must not be empty');
      if (spec.flag === 'secrets-key' && !isSecretsKey(value)) throw refuse('must be base64 of 32 bytes');
      if (spec.flag === 'npm-registry' && !isHttpUrl(value)) throw refuse('must be an http(s) URL');
      return value;
    case 'port':
      if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) throw refuse('must be a port number 0..65535');
      return Number(value);
    case 'host': {
      const bare = /^\[.*\]$/.test(value) ? value.slice(1, -1) : value;
      if (isIP(bare) === 0 && !isHostName(value)) throw refuse('must be an IP address or a host name');
      return bare;
    }
    case 'positiveInteger': {
      const min = spec.min ?? 1;
      const max = spec.max ?? Number.MAX_SAFE_INTEGER;
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < 1) {
        throw refuse('must be a positive integer');
      }
      if (Number(value) < min || Number(value) > max) throw refuse(`must be between ${min} and ${max}`);
      return Number(value);
    }
    case 'boolean':
      if (value !== 'true' && value !== 'false') throw refuse('must be true or false');
      return value === 'true';
    case 'list': {
      const items = value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
      if (spec.flag.endsWith('cidrs')) {
        for (const item of items) {
          try {
            parseCidr(item);
          } catch (error) {
            throw refuse((error as Error).message);
          }
        }
      }
      if (spec.flag === 'registries') {
        const bad = items.find((item) => !isHttpUrl(item));
        if (bad !== undefined) throw refuse(`"${bad}" is not an http(s) URL`);
      }
      if (spec.flag === 'allowed-hosts') {
        const bad = items.find((item) => item !== '*' && !isHostPattern(item));
        if (bad !== undefined) throw refuse(`"${bad}" is not a host name, .domain or *`);
      }
      if (spec.flag === 'allowed-origins') {
        const bad = items.find((item) => item !== '*' && !isOrigin(item));
        if (bad !== undefined) throw refuse(`"${bad}" is not an origin like https://ui.example.com or *`);
      }
      if (spec.flag === 'secrets-previous-keys' && !items.every(isSecretsKey)) {
        throw refuse('every key must be base64 of 32 bytes');
      }
      return items;
    }
    case 'logLevel':
      if (!(LOG_LEVELS as readonly string[]).includes(value))
        throw refuse(`must be one of ${LOG_LEVELS.join(', ')}`);
      return value;
  }
}

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens, the last one not all digits (so `300.1.1.1` is no name). */
function isHostName(value: string): boolean {
  const labels = value.split('.');
  return (
    value.length <= 253 && labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels.at(-1) ?? '')
  );
}

/** A host name or IP address, or `.domain` for a domain and its subdomains. */
function isHostPattern(value: string): boolean {
  const name = value.startsWith('.') ? value.slice(1) : value;
  const bare = /^\[.*\]$/.test(name) ? name.slice(1, -1) : name;
  return isIP(bare) !== 0 || isHostName(name.replace(/\.$/, ''));
}

/** `http(s)://host[:port]` as browsers send it in `Origin`: no path, query, fragment or user. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !/^[a-z]+:\/\/[^/]*\/./i.test(value) &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === ''
    );
  } catch {
    return false;
  }
}

function database({ value, source }: { value: string; source: string }): DatabaseTarget {
  try {
    return parseDatabaseUrl(value);
  } catch (error) {
    throw new ConfigError(`invalid value for ${source}: ${(error as Error).message}`);
  }
}

/** True for base64 text decoding to exactly 32 bytes (SPEC §3 secrets key). */
export function isSecretsKey(value: string): boolean {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
