import { LOG_LEVELS, type LogLevel } from './create-logger';
import { type DatabaseTarget, expandHome, parseDatabaseUrl } from './database-url';
import { bareIp, isHostName } from './flag-checks';

/** How a flag's value is written (a `boolean` is a switch: `--insecure` alone means true). */
export type FlagKind =
  | 'string'
  | 'host'
  | 'port'
  | 'positiveInteger'
  | 'duration'
  | 'boolean'
  | 'list'
  | 'logLevel'
  | 'databaseUrl'
  | 'address';

/** What the settings computed from others are computed from. */
export interface DefaultContext {
  /** The data directory, which holds the default database and names the default host id. */
  readonly dataDir: string;
}

/** A default: a value, or computed from the data directory. */
export type FlagDefault<T> = T | ((context: DefaultContext) => T);

/**
 * One setting of `cyrnel-server`: its flag, its environment variable, how its text is read, its
 * default and bounds, and its help. The parser, `--help`, `startServer`'s defaults and the
 * README's flag table all read these, so a setting is described once.
 */
export interface FlagSpec<T = unknown> {
  /** Long flag name without dashes, e.g. `port`. */
  readonly flag: string;
  /** Environment variable, e.g. `CYRNEL_PORT`. */
  readonly env: string;
  /** How the value is written. */
  readonly kind: FlagKind;
  /** One line for `--help` and the README (Markdown code spans; `--help` drops the backticks). */
  readonly help: string;
  /** What the README says besides the help (Markdown). */
  readonly details?: string;
  /** The value when neither the flag nor the variable is given. */
  readonly default: FlagDefault<T>;
  /** The default as `--help` and the README write it, where it is computed (Markdown). */
  readonly shownDefault?: string;
  /** Smallest value of a `positiveInteger` flag (default 1). */
  readonly min?: number;
  /** Largest value of a `positiveInteger` flag (default `Number.MAX_SAFE_INTEGER`). */
  readonly max?: number;
  /** The value of a flag's or variable's text; throws an `Error` saying why the text is refused. */
  read(text: string): T;
}

/** What every kind of flag is declared with. */
type Described = Pick<FlagSpec, 'flag' | 'env' | 'help' | 'details' | 'shownDefault'>;

/** A refusal when `check` finds fault with a value: its reason, or `undefined` for a good value. */
type Check<T> = (value: T) => string | undefined;

function nonEmpty(text: string): string {
  if (text.trim() === '') throw new Error('must not be empty');
  return text;
}

function checked<T>(value: T, check: Check<T> | undefined): T {
  const why = check?.(value);
  if (why !== undefined) throw new Error(why);
  return value;
}

/** A text value, never empty; `check` refuses more. */
export function textFlag<D extends string | undefined>(
  spec: Described & { readonly default: FlagDefault<D>; readonly check?: Check<string> },
): FlagSpec<string | D> {
  const { check, ...rest } = spec;
  return {
    ...rest,
    kind: 'string',
    read: (text) => checked(nonEmpty(text), check),
  };
}

/** A whole number within `min` (default 1) and `max` (default `Number.MAX_SAFE_INTEGER`). */
export function integerFlag<D extends number | undefined>(
  spec: Described & { readonly default: D; readonly min?: number; readonly max?: number },
): FlagSpec<number | D> {
  const min = spec.min ?? 1;
  const max = spec.max ?? Number.MAX_SAFE_INTEGER;
  return {
    ...spec,
    kind: 'positiveInteger',
    read: (text) => {
      const value = Number(text);
      if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || (value < 1 && min >= 1))
        throw new Error(min >= 1 ? 'must be a positive integer' : 'must be a whole number');
      if (value < min || value > max) throw new Error(`must be between ${min} and ${max}`);
      return value;
    },
  };
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration read in milliseconds: a whole number and a unit (`500ms`, `90s`, `30m`, `12h`, `7d`), or `0`. */
export function durationFlag(
  spec: Described & { readonly default: number; readonly shownDefault: string },
): FlagSpec<number> {
  return {
    ...spec,
    kind: 'duration',
    read: (text) => {
      if (text === '0') return 0;
      const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
      const value = match ? Number(match[1]) * (DURATION_UNITS[match[2] as string] as number) : Number.NaN;
      if (!Number.isSafeInteger(value))
        throw new Error('must be 0 or a whole number with a unit: 500ms, 90s, 30m, 12h, 7d');
      return value;
    },
  };
}

/** A switch, off by default: `--insecure`, `--insecure=false`, `CYRNEL_INSECURE=true`. */
export function switchFlag(spec: Described): FlagSpec<boolean> {
  return {
    ...spec,
    kind: 'boolean',
    default: false,
    read: (text) => {
      if (text !== 'true' && text !== 'false') throw new Error('must be true or false');
      return text === 'true';
    },
  };
}

/** Comma-separated values, blanks dropped; none by default; `check` refuses a list. */
export function listFlag(
  spec: Described & { readonly check?: Check<readonly string[]> },
): FlagSpec<readonly string[]> {
  const { check, ...rest } = spec;
  return {
    ...rest,
    kind: 'list',
    default: [],
    read: (text) =>
      checked(
        text
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
        check,
      ),
  };
}

/** A TCP port, 0 for any free one. */
export function portFlag(spec: Described & { readonly default: number }): FlagSpec<number> {
  return {
    ...spec,
    kind: 'port',
    read: (text) => {
      if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) throw new Error('must be a port number 0..65535');
      return Number(text);
    },
  };
}

/** An IP address (`[::1]` unwrapped) or an RFC 1123 host name. */
export function hostFlag(spec: Described & { readonly default: string }): FlagSpec<string> {
  return {
    ...spec,
    kind: 'host',
    read: (text) => {
      const ip = bareIp(text);
      if (ip === undefined && !isHostName(text)) throw new Error('must be an IP address or a host name');
      return ip ?? text;
    },
  };
}

/** One of {@link LOG_LEVELS}. */
export function logLevelFlag(spec: Described & { readonly default: LogLevel }): FlagSpec<LogLevel> {
  return {
    ...spec,
    kind: 'logLevel',
    read: (text) => {
      if (!(LOG_LEVELS as readonly string[]).includes(text))
        throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
      return text as LogLevel;
    },
  };
}

/** A directory or file, `~` under the home directory, relative ones from the working directory. */
export function pathFlag(spec: Described & { readonly default: FlagDefault<string> }): FlagSpec<string> {
  return { ...spec, kind: 'string', read: (text) => expandHome(nonEmpty(text)) };
}

/** A listen address: a host (an IP address, `[::1]` for IPv6, or a host name) and a port. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** A `host:port` to listen on (`127.0.0.1:9464`, `[::1]:9464`, `localhost:9464`); off by default. */
export function addressFlag(
  spec: Described & { readonly shownDefault: string },
): FlagSpec<ListenAddress | undefined> {
  return {
    ...spec,
    kind: 'address',
    default: undefined,
    read: (text) => {
      const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(text);
      const ip = match ? bareIp(match[1] as string) : undefined;
      const host = ip ?? (match && isHostName(match[1] as string) ? (match[1] as string) : undefined);
      const port = Number(match?.[2]);
      if (host === undefined || !(port <= 65_535))
        throw new Error('must be host:port, e.g. 127.0.0.1:9464 or [::1]:9464 (port 0..65535)');
      return { host, port };
    },
  };
}

/** A `--database-url`: the store it names (see {@link parseDatabaseUrl}). */
export function databaseUrlFlag(
  spec: Described & { readonly default: FlagDefault<DatabaseTarget> },
): FlagSpec<DatabaseTarget> {
  return { ...spec, kind: 'databaseUrl', read: parseDatabaseUrl };
}

/** The value of `spec` when nothing sets it. */
export function defaultOf<T>(spec: FlagSpec<T>, context: DefaultContext): T {
  return typeof spec.default === 'function'
    ? (spec.default as (context: DefaultContext) => T)(context)
    : spec.default;
}
