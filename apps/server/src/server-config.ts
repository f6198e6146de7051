import { type ParseArgsConfig, parseArgs } from 'node:util';
import { defaultOf, type FlagSpec } from './flag-spec';
import { homeDataDir, SERVER_FLAGS, SERVER_SETTINGS, type ServerConfig } from './server-flags';

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

/** The settings by flag name, and the field of {@link ServerConfig} each one sets. */
const BY_FLAG = new Map(
  Object.entries(SERVER_SETTINGS).map(([key, spec]) => [spec.flag, { key, spec: spec as FlagSpec }]),
);

/**
 * Parse `argv` (without node and the script) and the environment into a {@link ServerConfig}.
 * `--flag value` and `--flag=value` both work (a switch such as `--insecure` takes no separate
 * value; `--insecure=false` is allowed); a flag wins over its variable. `node:util` `parseArgs`
 * splits the arguments (non-strict, so unknown flags and a switch's `=value` reach our own
 * messages and value checks).
 *
 * @example
 * ```ts
 * const parsed = parseServerConfig(['--port', '8080'], { CYRNEL_LOG_LEVEL: 'debug' });
 * // { action: 'run', config: { port: 8080, logLevel: 'debug', host: '127.0.0.1', … } }
 * ```
 */
export function parseServerConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
  const raw = new Map<string, { text: string; source: string }>();
  for (const spec of SERVER_FLAGS) {
    const text = env[spec.env];
    if (text !== undefined && text !== '') raw.set(spec.flag, { text, source: spec.env });
  }
  const { tokens } = parseArgs({ args: [...argv], options: PARSE_OPTIONS, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional')
      throw new ConfigError(`unexpected argument "${token.value}" (see --help)`);
    if (token.kind === 'option-terminator') continue;
    if (token.name === 'help') return { action: 'help' };
    if (token.name === 'version') return { action: 'version' };
    const spec = BY_FLAG.get(token.name)?.spec;
    if (!spec) throw new ConfigError(`unknown flag ${token.rawName} (see --help)`);
    if (token.value === undefined && spec.kind !== 'boolean')
      throw new ConfigError(`--${spec.flag} needs a value`);
    raw.set(spec.flag, { text: token.value ?? 'true', source: `--${spec.flag}` });
  }
  const given: Record<string, unknown> = {};
  for (const { key, spec } of BY_FLAG.values()) {
    const entry = raw.get(spec.flag);
    if (entry === undefined) continue;
    const { text, source } = entry;
    try {
      given[key] = spec.read(text);
    } catch (error) {
      throw new ConfigError(`invalid value for ${source}: ${(error as Error).message}`);
    }
  }
  return { action: 'run', config: resolveServerConfig(given) };
}

/**
 * `given` with every setting it leaves out (or `undefined`) set to its default: what the binary
 * runs with when no flag or variable names a value, and what `startServer` and the embedded MCP
 * host fill their options with. The defaults computed from the data directory (the database,
 * the host id) follow the data directory given.
 *
 * @example
 * ```ts
 * resolveServerConfig({ dataDir: '/tmp/cyrnel' }).database; // { kind: 'sqlite', path: '/tmp/cyrnel/data.db' }
 * ```
 */
export function resolveServerConfig(given: Partial<ServerConfig>): ServerConfig {
  const context = { dataDir: given.dataDir ?? homeDataDir() };
  const config: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(SERVER_SETTINGS) as [keyof ServerConfig, FlagSpec][]) {
    const value = given[key];
    config[key] = value === undefined ? defaultOf(spec, context) : value;
  }
  return config as ServerConfig;
}
