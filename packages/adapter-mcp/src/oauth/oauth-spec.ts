import { cyrnelError, isPlainObject, type ServiceState } from '@cyrnel/sdk';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/client';
import type { MachineGrant } from './machine';

/**
 * True when a service's connections sign in themselves: an HTTP server whose definition has an
 * `oauth` block (`AdapterAuthorization.signsIn` of the adapter).
 *
 * @example
 * ```ts
 * signsInWithOAuth({ adapterDomain: { spec: { transport: 'http', url: 'https://h/mcp', oauth: {} } } }); // true
 * ```
 */
export function signsInWithOAuth(state: Pick<ServiceState, 'adapterDomain'>): boolean {
  const spec = isPlainObject(state.adapterDomain.spec) ? state.adapterDomain.spec : undefined;
  return spec?.transport === 'http' && isPlainObject(spec.oauth);
}

/** The grants a definition's `oauth.grant` may name. */
export const OAUTH_GRANTS = [
  'authorization_code',
  'client_credentials',
  'private_key_jwt',
  'cross_app_access',
] as const;

/** How a service signs in to an MCP server behind OAuth, as its definition says it. */
export type OAuthGrant = (typeof OAUTH_GRANTS)[number];

/**
 * A definition's `oauth` block (HTTP servers only): with it, the server's tools are listed once a
 * connection is authorized, and each connection keeps its own tokens. Every string may hold
 * `${secrets.NAME}` and `${config.NAME}` placeholders.
 *
 * @example
 * ```json
 * { "transport": "http", "url": "https://mcp.example.com/mcp",
 *   "oauth": { "scopes": ["read"], "clientId": "cyrnel", "clientSecret": "${secrets.clientSecret}" } }
 * ```
 */
export interface OAuthSpec {
  /** Default `authorization_code` (a person authorizes each connection in a browser). */
  readonly grant: OAuthGrant;
  /** Scopes the first authorization asks for; absent: what the server's metadata names. */
  readonly scopes?: readonly string[];
  /** A client registered by hand (else: a client ID metadata document, or dynamic registration). */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** `private_key_jwt`: the PEM key the assertion is signed with, and its algorithm (default ES256). */
  readonly privateKey?: string;
  readonly algorithm?: string;
  /** `cross_app_access`: the enterprise IdP's token endpoint, client and the person's ID token. */
  readonly idp?: {
    readonly tokenEndpoint: string;
    readonly clientId: string;
    readonly clientSecret?: string;
    readonly idToken: string;
  };
  /**
   * Accept authorization server metadata whose `issuer` is not where it was found (RFC 8414
   * requires they match): only for a server known to publish such metadata.
   */
  readonly skipIssuerCheck?: boolean;
}

const FIELDS = [
  'grant',
  'scopes',
  'clientId',
  'clientSecret',
  'privateKey',
  'algorithm',
  'idp',
  'skipIssuerCheck',
];
const MAX_SCOPES = 100;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/;

function invalid(message: string, path: string): never {
  throw cyrnelError('invalid_definition', message, { details: [{ path, message }] });
}

/**
 * Check a definition's `oauth` block; `text` checks one string value (length, placeholders).
 *
 * @example
 * ```ts
 * parseOAuthSpec({ grant: 'client_credentials', clientId: 'svc', clientSecret: '${secrets.secret}' }, '/oauth', check);
 * ```
 */
export function parseOAuthSpec(
  raw: unknown,
  path: string,
  text: (value: unknown, path: string) => string,
): OAuthSpec {
  if (!isPlainObject(raw)) return invalid(`${path} must be an object`, path);
  for (const key of Object.keys(raw))
    if (!FIELDS.includes(key)) invalid(`unknown field "${key}" of ${path}`, `${path}/${key}`);
  const grant = raw.grant ?? 'authorization_code';
  if (!OAUTH_GRANTS.includes(grant as OAuthGrant))
    invalid(`${path}/grant must be one of ${OAUTH_GRANTS.join(', ')}`, `${path}/grant`);
  const optional = (name: string) =>
    raw[name] === undefined ? undefined : text(raw[name], `${path}/${name}`);
  let scopes: string[] | undefined;
  if (raw.scopes !== undefined) {
    if (!Array.isArray(raw.scopes) || raw.scopes.length > MAX_SCOPES)
      invalid(`${path}/scopes must be a list of at most ${MAX_SCOPES} scopes`, `${path}/scopes`);
    scopes = raw.scopes.map((scope, index) => {
      if (typeof scope !== 'string' || !SCOPE.test(scope))
        invalid(`${path}/scopes/${index} is not an OAuth scope token`, `${path}/scopes/${index}`);
      return scope;
    });
  }
  if (raw.skipIssuerCheck !== undefined && typeof raw.skipIssuerCheck !== 'boolean')
    invalid(`${path}/skipIssuerCheck must be a boolean`, `${path}/skipIssuerCheck`);
  const fields = {
    clientId: optional('clientId'),
    clientSecret: optional('clientSecret'),
    privateKey: optional('privateKey'),
    algorithm: optional('algorithm'),
  };
  const need = (name: keyof typeof fields) => {
    if (fields[name] === undefined)
      invalid(`${path}/${name} is required for grant ${grant}`, `${path}/${name}`);
  };
  if (grant === 'client_credentials' || grant === 'cross_app_access') {
    need('clientId');
    need('clientSecret');
  }
  if (grant === 'private_key_jwt') {
    need('clientId');
    need('privateKey');
  }
  let idp: OAuthSpec['idp'];
  if (grant === 'cross_app_access') {
    if (!isPlainObject(raw.idp)) return invalid(`${path}/idp is required for grant ${grant}`, `${path}/idp`);
    const source = raw.idp;
    for (const key of Object.keys(source))
      if (!['tokenEndpoint', 'clientId', 'clientSecret', 'idToken'].includes(key))
        invalid(`unknown field "${key}" of ${path}/idp`, `${path}/idp/${key}`);
    idp = {
      tokenEndpoint: text(source.tokenEndpoint, `${path}/idp/tokenEndpoint`),
      clientId: text(source.clientId, `${path}/idp/clientId`),
      idToken: text(source.idToken, `${path}/idp/idToken`),
      ...(source.clientSecret === undefined
        ? {}
        : { clientSecret: text(source.clientSecret, `${path}/idp/clientSecret`) }),
    };
  } else if (raw.idp !== undefined) invalid(`${path}/idp is only for grant cross_app_access`, `${path}/idp`);
  return {
    grant: grant as OAuthGrant,
    ...(scopes ? { scopes } : {}),
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    ...(idp ? { idp } : {}),
    ...(raw.skipIssuerCheck === true ? { skipIssuerCheck: true } : {}),
  };
}

/** Every string of an `oauth` block that may hold placeholders. */
export function oauthTexts(spec: OAuthSpec): string[] {
  return [
    spec.clientId,
    spec.clientSecret,
    spec.privateKey,
    spec.algorithm,
    spec.idp?.tokenEndpoint,
    spec.idp?.clientId,
    spec.idp?.clientSecret,
    spec.idp?.idToken,
  ].filter((value): value is string => value !== undefined);
}

/** The block with `fill` applied to every string that may hold placeholders. */
export function fillOAuthSpec(spec: OAuthSpec, fill: (text: string) => string): OAuthSpec {
  const maybe = (value: string | undefined) => (value === undefined ? undefined : fill(value));
  const filled: Record<string, unknown> = {
    ...spec,
    clientId: maybe(spec.clientId),
    clientSecret: maybe(spec.clientSecret),
    privateKey: maybe(spec.privateKey),
    algorithm: maybe(spec.algorithm),
    ...(spec.idp
      ? {
          idp: {
            tokenEndpoint: fill(spec.idp.tokenEndpoint),
            clientId: fill(spec.idp.clientId),
            idToken: fill(spec.idp.idToken),
            ...(spec.idp.clientSecret === undefined ? {} : { clientSecret: fill(spec.idp.clientSecret) }),
          },
        }
      : {}),
  };
  for (const key of Object.keys(filled)) if (filled[key] === undefined) delete filled[key];
  return filled as unknown as OAuthSpec;
}

/** The grant without a person a filled block names, if any. */
export function machineGrantOf(spec: OAuthSpec): MachineGrant | undefined {
  const clientId = spec.clientId as string;
  if (spec.grant === 'client_credentials')
    return { kind: 'client_secret', clientId, clientSecret: spec.clientSecret as string };
  if (spec.grant === 'private_key_jwt')
    return {
      kind: 'private_key_jwt',
      clientId,
      privateKeyPem: spec.privateKey as string,
      algorithm: spec.algorithm ?? 'ES256',
    };
  if (spec.grant === 'cross_app_access' && spec.idp)
    return { kind: 'cross_app_access', clientId, clientSecret: spec.clientSecret as string, idp: spec.idp };
  return undefined;
}

/** The client registered by hand a filled block names (authorization code only). */
export function preRegisteredOf(spec: OAuthSpec): OAuthClientInformationMixed | undefined {
  if (spec.grant !== 'authorization_code' || spec.clientId === undefined) return undefined;
  return {
    client_id: spec.clientId,
    ...(spec.clientSecret === undefined ? {} : { client_secret: spec.clientSecret }),
  };
}
