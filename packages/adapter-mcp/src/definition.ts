import { createRequire } from 'node:module';
import { cyrnelError, isPlainObject, type JSONSchema } from '@cyrnel/sdk';
import { fillOAuthSpec, type OAuthSpec, oauthTexts, parseOAuthSpec } from './oauth/oauth-spec';

let yaml: typeof import('yaml') | undefined;
/** The `yaml` package, loaded by the first definition parsed: a server without MCP services never holds it. */
function yamlPackage(): typeof import('yaml') {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml;
}

/** How cyrnel reaches one MCP server: a command it starts, or a Streamable HTTP endpoint. */
export type ServerSpec = StdioSpec | HttpSpec;

/** An MCP server cyrnel starts and speaks to on stdin/stdout. */
export interface StdioSpec {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** An MCP server at a Streamable HTTP endpoint. */
export interface HttpSpec {
  readonly transport: 'http';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The server is behind OAuth: each connection signs in (see {@link OAuthSpec}). */
  readonly oauth?: OAuthSpec;
}

/** The names a definition's `${secrets.NAME}` and `${config.NAME}` placeholders use. */
export interface Placeholders {
  readonly secrets: readonly string[];
  readonly config: readonly string[];
}

/** Default deadline of one tool call, in ms (config `timeoutMs`). */
export const DEFAULT_TIMEOUT_MS = 60_000;

const MAX_TEXT = 64 * 1024;
const MAX_ITEMS = 200;
const MAX_VALUE = 8 * 1024;
const PLACEHOLDER = /\$\{(secrets|config)\.([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** A `${` not starting a well-formed placeholder: refused rather than passed on as text. */
const ANY_PLACEHOLDER = /\$\{[^}]*\}?/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Names only cyrnel sets on an HTTP request, or that change how it is framed. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
]);

function invalid(message: string, path: string): never {
  throw cyrnelError('invalid_definition', message, { details: [{ path, message }] });
}

function stringValue(value: unknown, path: string): string {
  if (typeof value !== 'string') return invalid(`${path} must be a string`, path);
  if (value.length > MAX_VALUE) return invalid(`${path} is longer than ${MAX_VALUE} characters`, path);
  if (value.includes('\0')) return invalid(`${path} contains a NUL character`, path);
  for (const match of value.matchAll(ANY_PLACEHOLDER)) {
    if (!new RegExp(`^${PLACEHOLDER.source}$`).test(match[0]))
      invalid(`${path} has "${match[0]}": placeholders are \${secrets.NAME} or \${config.NAME}`, path);
  }
  return value;
}

function stringMap(value: unknown, path: string, name: RegExp, what: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) return invalid(`${path} must be an object of strings`, path);
  const entries = Object.entries(value);
  if (entries.length > MAX_ITEMS) invalid(`${path} has more than ${MAX_ITEMS} entries`, path);
  const out: Record<string, string> = {};
  for (const [key, item] of entries) {
    if (!name.test(key)) invalid(`${path} has "${key}", which is not a valid ${what} name`, `${path}/${key}`);
    out[key] = stringValue(item, `${path}/${key}`);
  }
  return out;
}

/**
 * Parse a definition text: JSON, or YAML (a superset). Refuses anything but the two shapes, with
 * the path of the problem.
 *
 * @example
 * ```ts
 * parseDefinition('{"transport":"http","url":"https://mcp.example.com/mcp","headers":{"Authorization":"Bearer ${secrets.token}"}}');
 * ```
 */
export function parseDefinition(text: string): ServerSpec {
  if (text.length > MAX_TEXT) invalid(`the definition is longer than ${MAX_TEXT} characters`, '');
  let raw: unknown;
  try {
    raw = yamlPackage().parse(text, { maxAliasCount: 0, uniqueKeys: true });
  } catch (error) {
    invalid(`the definition is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`, '');
  }
  if (!isPlainObject(raw)) return invalid('the definition must be an object', '');
  const known =
    raw.transport === 'stdio'
      ? ['transport', 'command', 'args', 'env', 'cwd']
      : raw.transport === 'http'
        ? ['transport', 'url', 'headers', 'oauth']
        : invalid('transport must be "stdio" or "http"', '/transport');
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) invalid(`unknown field "${key}" for transport ${raw.transport}`, `/${key}`);
  }
  if (raw.transport === 'http') {
    const url = stringValue(raw.url, '/url');
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return invalid('url must be an absolute http(s) URL', '/url');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      invalid('url must be an absolute http(s) URL', '/url');
    if (parsed.username || parsed.password)
      invalid(`url must not carry credentials: put them in headers with \${secrets.NAME}`, '/url');
    const headers = stringMap(raw.headers, '/headers', HEADER_NAME, 'header');
    for (const name of Object.keys(headers)) {
      if (RESERVED_HEADERS.has(name.toLowerCase()))
        invalid(`header "${name}" is set by cyrnel and cannot be configured`, `/headers/${name}`);
    }
    return {
      transport: 'http',
      url,
      headers,
      ...(raw.oauth === undefined ? {} : { oauth: parseOAuthSpec(raw.oauth, '/oauth', stringValue) }),
    };
  }
  const command = stringValue(raw.command, '/command');
  if (command.trim() === '') invalid('command must not be empty', '/command');
  if (command.includes('${'))
    invalid('command cannot hold placeholders: it is checked against the allow-list', '/command');
  if (raw.args !== undefined && !Array.isArray(raw.args))
    invalid('args must be an array of strings', '/args');
  const args = (raw.args ?? []) as unknown[];
  if (args.length > MAX_ITEMS) invalid(`args has more than ${MAX_ITEMS} items`, '/args');
  const cwd = raw.cwd === undefined ? undefined : stringValue(raw.cwd, '/cwd');
  return {
    transport: 'stdio',
    command,
    args: args.map((arg, index) => stringValue(arg, `/args/${index}`)),
    env: stringMap(raw.env, '/env', ENV_NAME, 'environment variable'),
    ...(cwd === undefined ? {} : { cwd }),
  };
}

/** Every placeholder name of a spec, each once, in order of appearance. */
export function placeholdersOf(spec: ServerSpec): Placeholders {
  const values =
    spec.transport === 'http'
      ? [spec.url, ...Object.values(spec.headers), ...(spec.oauth ? oauthTexts(spec.oauth) : [])]
      : [...spec.args, ...Object.values(spec.env), ...(spec.cwd === undefined ? [] : [spec.cwd])];
  const secrets = new Set<string>();
  const config = new Set<string>();
  for (const value of values) {
    for (const [, kind, name] of value.matchAll(PLACEHOLDER))
      (kind === 'secrets' ? secrets : config).add(name as string);
  }
  return { secrets: [...secrets], config: [...config] };
}

/** The service's config schema: one required string per `${config.NAME}`, and `timeoutMs`. */
export function configSchemaOf(placeholders: Placeholders): JSONSchema {
  return {
    type: 'object',
    properties: {
      ...Object.fromEntries(
        placeholders.config.map((name) => [
          name,
          { type: 'string', description: `Replaces \${config.${name}}` },
        ]),
      ),
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        maximum: 600_000,
        default: DEFAULT_TIMEOUT_MS,
        description: 'Deadline of one tool call in ms; the MCP request is cancelled past it',
      },
      propagateTrace: {
        type: 'boolean',
        default: true,
        description:
          "Send the tool call's W3C trace context in the MCP request's _meta and, over HTTP, its headers (traceparent, tracestate) while the server traces; false keeps the server from learning it",
      },
    },
    required: [...placeholders.config],
    additionalProperties: false,
  };
}

/** The service's secrets schema: one required string per `${secrets.NAME}`. */
export function secretsSchemaOf(placeholders: Placeholders): JSONSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(
      placeholders.secrets.map((name) => [
        name,
        { type: 'string', description: `Replaces \${secrets.${name}}`, writeOnly: true },
      ]),
    ),
    required: [...placeholders.secrets],
    additionalProperties: false,
  };
}

/**
 * The spec with every placeholder replaced by its value. A missing value is a clear error
 * naming it (the schemas make it required, so this is a spec used before validation).
 */
export function resolveSpec(
  spec: ServerSpec,
  values: { readonly config: Record<string, unknown>; readonly secrets: Record<string, unknown> },
): ServerSpec {
  const fill = (text: string): string =>
    text.replace(PLACEHOLDER, (_, kind: 'secrets' | 'config', name: string) => {
      const value = values[kind][name];
      if (typeof value !== 'string')
        throw cyrnelError(
          kind === 'secrets' ? 'missing_secret' : 'invalid_request',
          `${kind}.${name} is not set`,
          {
            details: [{ path: `${kind}/${name}`, message: 'must be a string' }],
          },
        );
      return value;
    });
  const fillMap = (map: Readonly<Record<string, string>>, what: string) =>
    Object.fromEntries(
      Object.entries(map).map(([key, value]) => {
        const filled = fill(value);
        // A secret with a line break would split a header (or be refused by the runtime later).
        if (/[\r\n\0]/.test(filled))
          throw cyrnelError(
            'invalid_request',
            `the value of ${what} ${key} has a line break or NUL after its placeholders are filled`,
          );
        return [key, filled];
      }),
    );
  if (spec.transport === 'http')
    return {
      transport: 'http',
      url: fill(spec.url),
      headers: fillMap(spec.headers, 'header'),
      ...(spec.oauth ? { oauth: fillOAuthSpec(spec.oauth, fill) } : {}),
    };
  return {
    transport: 'stdio',
    command: spec.command,
    args: spec.args.map(fill),
    env: fillMap(spec.env, 'environment variable'),
    ...(spec.cwd === undefined ? {} : { cwd: fill(spec.cwd) }),
  };
}
