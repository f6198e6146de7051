import { isPlainObject } from '@cyrnel/sdk';
import type { ParsedDocument } from './parse-document';
import type { SchemaRegistry } from './schema-registry';

/** One OAuth flow a service supports: where its endpoints are and the scopes it offers. */
export interface OAuthFlowPlan {
  /** The authorization endpoint (the authorization code flow only). */
  readonly authorizationUrl?: string;
  readonly tokenUrl: string;
  /** Where tokens are refreshed, when the document names another URL than `tokenUrl`. */
  readonly refreshUrl?: string;
  /** The scopes the flow offers, with their descriptions. */
  readonly scopes: Readonly<Record<string, string>>;
}

/**
 * How a service signs in with one security scheme of type `oauth2` or `openIdConnect` (service
 * adapterDomain `oauth`, by scheme name). Only the flows OAuth 2.1 keeps are listed: implicit
 * and password are left out.
 */
export interface OAuthSchemePlan {
  readonly type: 'oauth2' | 'openIdConnect';
  /** openIdConnect: the discovery document (the flows then come from it, not from the document). */
  readonly openIdConnectUrl?: string;
  readonly flows: {
    readonly authorizationCode?: OAuthFlowPlan;
    readonly clientCredentials?: OAuthFlowPlan;
  };
  /** The scopes the document's operations ask for with this scheme (sorted, maybe empty). */
  readonly requiredScopes: readonly string[];
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** `url` made absolute against `base` (3.1 lets URLs be relative to the server); as written when it cannot be. */
function absolute(url: string, base: string | undefined): string {
  try {
    return new URL(url, base).href;
  } catch {
    return url;
  }
}

function scopesOf(value: unknown): Record<string, string> {
  if (!isPlainObject(value)) return {};
  const out: Record<string, string> = {};
  for (const [name, description] of Object.entries(value)) {
    if (name.startsWith('x-')) continue;
    out[name] = typeof description === 'string' ? description : '';
  }
  return out;
}

function flowOf(
  value: unknown,
  base: string | undefined,
  withAuthorization: boolean,
): OAuthFlowPlan | undefined {
  if (!isPlainObject(value) || typeof value.tokenUrl !== 'string') return undefined;
  if (withAuthorization && typeof value.authorizationUrl !== 'string') return undefined;
  return {
    ...(withAuthorization ? { authorizationUrl: absolute(value.authorizationUrl as string, base) } : {}),
    tokenUrl: absolute(value.tokenUrl, base),
    ...(typeof value.refreshUrl === 'string' ? { refreshUrl: absolute(value.refreshUrl, base) } : {}),
    scopes: scopesOf(value.scopes),
  };
}

/** The flows of a 3.x `flows` object, or of a Swagger 2.0 scheme's single `flow`. */
function flowsOf(
  scheme: Record<string, unknown>,
  dialect: ParsedDocument['dialect'],
  base: string | undefined,
) {
  if (dialect === '2.0') {
    // Swagger 2.0 names the code flow `accessCode` and client credentials `application`.
    const flows: { authorizationCode?: OAuthFlowPlan; clientCredentials?: OAuthFlowPlan } = {};
    const code = scheme.flow === 'accessCode' ? flowOf(scheme, base, true) : undefined;
    const application = scheme.flow === 'application' ? flowOf(scheme, base, false) : undefined;
    if (code) flows.authorizationCode = code;
    if (application) flows.clientCredentials = application;
    return flows;
  }
  const raw = isPlainObject(scheme.flows) ? scheme.flows : {};
  const code = flowOf(raw.authorizationCode, base, true);
  const client = flowOf(raw.clientCredentials, base, false);
  return { ...(code ? { authorizationCode: code } : {}), ...(client ? { clientCredentials: client } : {}) };
}

/** Scopes each scheme is asked for by the document's security requirements (global and per operation). */
function requiredScopes(doc: ParsedDocument, registry: SchemaRegistry): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const add = (requirements: unknown) => {
    if (!Array.isArray(requirements)) return;
    for (const requirement of requirements) {
      if (!isPlainObject(requirement)) continue;
      for (const [name, scopes] of Object.entries(requirement)) {
        const set = found.get(name) ?? new Set<string>();
        if (Array.isArray(scopes)) for (const scope of scopes) if (typeof scope === 'string') set.add(scope);
        found.set(name, set);
      }
    }
  };
  add(doc.root.security);
  const paths = isPlainObject(doc.root.paths) ? doc.root.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    if (path.startsWith('x-')) continue;
    const item = registry.deref(rawItem);
    if (!isPlainObject(item)) continue;
    for (const [method, operation] of Object.entries(item))
      if (METHODS.has(method.toLowerCase()) && isPlainObject(operation)) add(operation.security);
  }
  return found;
}

/**
 * The OAuth flows a document's security schemes of type `oauth2` and `openIdConnect` describe
 * (3.x `components.securitySchemes`, Swagger 2.0 `securityDefinitions`), by scheme name; undefined
 * when it declares none. Relative URLs are resolved against the document's default base URL.
 */
export function oauthSchemesOf(
  doc: ParsedDocument,
  registry: SchemaRegistry,
  baseUrl: string | undefined,
): Record<string, OAuthSchemePlan> | undefined {
  const { root, dialect } = doc;
  const raw =
    dialect === '2.0'
      ? root.securityDefinitions
      : isPlainObject(root.components)
        ? root.components.securitySchemes
        : undefined;
  if (!isPlainObject(raw)) return undefined;
  const out: Record<string, OAuthSchemePlan> = {};
  let required: Map<string, Set<string>> | undefined;
  for (const [name, value] of Object.entries(raw)) {
    const scheme = registry.deref(value);
    if (!isPlainObject(scheme) || (scheme.type !== 'oauth2' && scheme.type !== 'openIdConnect')) continue;
    required ??= requiredScopes(doc, registry);
    const scopes = [...(required.get(name) ?? [])].sort();
    out[name] =
      scheme.type === 'openIdConnect'
        ? {
            type: 'openIdConnect',
            ...(typeof scheme.openIdConnectUrl === 'string'
              ? { openIdConnectUrl: absolute(scheme.openIdConnectUrl, baseUrl) }
              : {}),
            flows: {},
            requiredScopes: scopes,
          }
        : { type: 'oauth2', flows: flowsOf(scheme, dialect, baseUrl), requiredScopes: scopes };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
