import type { JSONSchema } from '@cyrnel/sdk';
import { isPlainObject } from '@cyrnel/sdk';
import { oauthSchemesOf } from './oauth-flows';
import type { SecuritySchemePlan, ServerPlan, ServicePlan } from './operation-model';
import type { ParsedDocument } from './parse-document';
import type { SchemaRegistry } from './schema-registry';

/** Default request timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Read a 3.x `servers` array into server plans. */
export function serversOf(value: unknown): ServerPlan[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isPlainObject)
    .filter((s) => typeof s.url === 'string')
    .map((server) => {
      const variables: Record<string, string> = {};
      if (isPlainObject(server.variables)) {
        for (const [name, variable] of Object.entries(server.variables)) {
          if (isPlainObject(variable) && variable.default !== undefined)
            variables[name] = String(variable.default);
        }
      }
      return { url: server.url as string, variables };
    });
}

/** Substitute `{name}` variables; unknown variables stay as they are. */
export function expandServerUrl(
  server: ServerPlan,
  overrides: Readonly<Record<string, unknown>> = {},
): string {
  return server.url.replace(/\{([^}]+)\}/g, (match, name: string) => {
    const value = overrides[name] ?? server.variables[name];
    return value === undefined ? match : String(value);
  });
}

function documentServers(doc: ParsedDocument): ServerPlan[] {
  const { root } = doc;
  if (doc.dialect !== '2.0') return serversOf(root.servers);
  if (typeof root.host !== 'string') return [];
  const schemes =
    Array.isArray(root.schemes) && root.schemes.length > 0 ? (root.schemes as string[]) : ['https'];
  const scheme = schemes.includes('https') ? 'https' : String(schemes[0]);
  const basePath = typeof root.basePath === 'string' ? root.basePath : '';
  return [{ url: `${scheme}://${root.host}${basePath}`, variables: {} }];
}

function securitySchemesOf(
  doc: ParsedDocument,
  registry: SchemaRegistry,
): Record<string, SecuritySchemePlan> {
  const { root } = doc;
  const raw =
    doc.dialect === '2.0'
      ? root.securityDefinitions
      : isPlainObject(root.components)
        ? root.components.securitySchemes
        : undefined;
  const out: Record<string, SecuritySchemePlan> = {};
  if (!isPlainObject(raw)) return out;
  for (const [name, value] of Object.entries(raw)) {
    const scheme = registry.deref(value);
    if (!isPlainObject(scheme) || typeof scheme.type !== 'string') continue;
    if (scheme.type === 'basic') out[name] = { type: 'http', scheme: 'basic' };
    else if (scheme.type === 'http')
      out[name] = { type: 'http', scheme: String(scheme.scheme ?? 'bearer').toLowerCase() };
    else if (scheme.type === 'apiKey')
      out[name] = { type: 'apiKey', in: String(scheme.in), name: String(scheme.name) };
    else out[name] = { type: scheme.type };
  }
  return out;
}

/** The service plan: servers, the default base URL, the security schemes and their OAuth flows. */
export function buildServicePlan(doc: ParsedDocument, registry: SchemaRegistry): ServicePlan {
  const servers = documentServers(doc);
  const first = servers[0];
  const expanded = first ? expandServerUrl(first) : undefined;
  const defaultBaseUrl = expanded && /^https?:\/\//i.test(expanded) ? expanded : undefined;
  const oauth = oauthSchemesOf(doc, registry, defaultBaseUrl);
  return {
    servers,
    ...(defaultBaseUrl ? { defaultBaseUrl } : {}),
    securitySchemes: securitySchemesOf(doc, registry),
    ...(oauth ? { oauth } : {}),
  };
}

/** configSchema: baseUrl, timeoutMs, headers, serverVariables. */
export function buildConfigSchema(plan: ServicePlan, doc: ParsedDocument): JSONSchema {
  const variables: Record<string, JSONSchema> = {};
  const rawServers = doc.dialect === '2.0' ? [] : ((doc.root.servers as unknown[] | undefined) ?? []);
  const firstVars =
    isPlainObject(rawServers[0]) && isPlainObject(rawServers[0].variables) ? rawServers[0].variables : {};
  for (const [name, variable] of Object.entries(firstVars)) {
    if (!isPlainObject(variable)) continue;
    variables[name] = {
      type: 'string',
      ...(Array.isArray(variable.enum) ? { enum: variable.enum.map(String) } : {}),
      ...(variable.default !== undefined ? { default: String(variable.default) } : {}),
      ...(typeof variable.description === 'string' ? { description: variable.description } : {}),
    };
  }
  const server = plan.servers[0];
  const baseUrlHelp =
    server && !plan.defaultBaseUrl
      ? `Base URL of the API; the document's server '${server.url}' is not absolute, so give the full URL`
      : 'Base URL of the API; overrides every server of the document, including path- and operation-level ones';
  return {
    type: 'object',
    properties: {
      baseUrl: {
        type: 'string',
        description: baseUrlHelp,
        ...(plan.defaultBaseUrl ? { default: plan.defaultBaseUrl } : {}),
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_TIMEOUT_MS,
        description: 'Request timeout in milliseconds',
      },
      headers: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Extra headers sent with every request',
      },
      propagateTrace: {
        type: 'boolean',
        default: true,
        description:
          "Send the tool call's W3C trace context (traceparent, tracestate) with each request while the server traces; false keeps the API from learning it",
      },
      serverVariables: {
        type: 'object',
        properties: variables,
        additionalProperties: { type: 'string' },
        description: 'Values of the server URL variables (used while baseUrl is the default)',
      },
    },
    ...(plan.defaultBaseUrl ? {} : { required: ['baseUrl'] }),
    additionalProperties: false,
  };
}

/**
 * The secret carrying headers the document declares no security scheme for (GitHub's description
 * declares none): merged over `config.headers`, so a token is stored encrypted and never returned.
 */
export const SECRET_HEADERS = 'headers';

/**
 * True when `secrets.headers` is that header map, not the credential of a security scheme the document
 * happens to name `headers` (the scheme keeps its name; such a service has no header map secret).
 */
export function hasSecretHeaders(plan: Pick<ServicePlan, 'securitySchemes'>): boolean {
  return !Object.hasOwn(plan.securitySchemes, SECRET_HEADERS);
}

/**
 * secretsSchema: one property per security scheme (http basic is `{ username, password }`)
 * and `headers`, extra headers for every request.
 */
export function buildSecretsSchema(plan: ServicePlan): JSONSchema {
  const properties: Record<string, JSONSchema> = {};
  for (const [name, scheme] of Object.entries(plan.securitySchemes)) {
    if (scheme.type === 'http' && scheme.scheme === 'basic') {
      properties[name] = {
        type: 'object',
        properties: { username: { type: 'string' }, password: { type: 'string' } },
        required: ['username', 'password'],
        additionalProperties: false,
        description: 'HTTP basic credentials',
      };
      continue;
    }
    const what =
      scheme.type === 'apiKey'
        ? `API key sent in ${scheme.in} '${scheme.name}'`
        : scheme.type === 'http'
          ? `Token sent as 'Authorization: ${scheme.scheme === 'bearer' ? 'Bearer' : scheme.scheme} <token>'`
          : `Access token (${scheme.type}) sent as 'Authorization: Bearer <token>'`;
    properties[name] = { type: 'string', description: what };
  }
  if (hasSecretHeaders(plan))
    properties[SECRET_HEADERS] = {
      type: 'object',
      additionalProperties: { type: 'string' },
      description:
        'Extra headers sent with every request, stored encrypted: a JSON object of header names to values (e.g. { "Authorization": "Bearer <token>" } for an API whose document declares no security scheme); they override config headers, and a declared scheme\'s credential overrides them',
    };
  return { type: 'object', properties, additionalProperties: false };
}
