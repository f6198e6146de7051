import type { ParameterLocation, SecuritySchemePlan } from './operation-model';

// Framing and hop-by-hop headers (RFC 9110 §7.6.1, RFC 9112 §6-7): the HTTP client sets them from
// the URL and the body it sends. Taken from a parameter they let code desynchronise the pooled
// keep-alive connection (request smuggling), so they never are.
const FRAMING_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

// OpenAPI: header parameters with these names are ignored (the adapter sets them from the
// operation's responses, body and security).
const ADAPTER_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** Why a header name is never taken from a parameter, or undefined when it may be. */
export function reservedHeaderReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (FRAMING_HEADERS.has(lower) || lower.startsWith('proxy-'))
    return 'a framing or hop-by-hop header the HTTP client sets itself';
  if (ADAPTER_HEADERS.has(lower))
    return 'set by the adapter from the operation; OpenAPI ignores this header parameter';
  return undefined;
}

/** True for the names `config.headers` may not set either (framing and hop-by-hop ones). */
export function isFramingHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return FRAMING_HEADERS.has(lower) || lower.startsWith('proxy-');
}

/** The parameter names the operation's credentials occupy, per location. */
export interface CredentialNames {
  /** Query names, exact (the scheme name of each). */
  readonly query: ReadonlyMap<string, string>;
  /** Header names, lower-case. */
  readonly header: ReadonlyMap<string, string>;
  /** Cookie names, lower-case. */
  readonly cookie: ReadonlyMap<string, string>;
}

/**
 * Every name a credential of the operation may be sent under (each scheme named by any of its
 * security alternatives), mapped to the scheme's name: a parameter of that name could duplicate
 * or override the secret (`?api_key=mine&api_key=secret`), so it is never taken from the caller.
 */
export function credentialNames(
  security: readonly (readonly string[])[],
  schemes: Readonly<Record<string, SecuritySchemePlan>>,
): CredentialNames {
  const query = new Map<string, string>();
  const header = new Map<string, string>();
  const cookie = new Map<string, string>();
  for (const schemeName of new Set(security.flat())) {
    const scheme = Object.hasOwn(schemes, schemeName) ? schemes[schemeName] : undefined;
    if (!scheme || scheme.type === 'mutualTLS') continue;
    if (scheme.type !== 'apiKey') header.set('authorization', schemeName);
    else if (scheme.in === 'query') query.set(scheme.name ?? '', schemeName);
    else if (scheme.in === 'cookie') {
      cookie.set((scheme.name ?? '').toLowerCase(), schemeName);
      // A `Cookie` header parameter would be sent in front of the credential cookie.
      header.set('cookie', schemeName);
    } else header.set((scheme.name ?? '').toLowerCase(), schemeName);
  }
  return { query, header, cookie };
}

/** The credential scheme a parameter of this name and location would collide with, if any. */
export function credentialCollision(
  names: CredentialNames,
  location: ParameterLocation,
  name: string,
): string | undefined {
  if (location === 'query') return names.query.get(name);
  if (location === 'header') return names.header.get(name.toLowerCase());
  if (location === 'cookie') return names.cookie.get(name.toLowerCase());
  return undefined;
}

/** One parameter left out of a tool, and why (shown in the tool's description). */
export interface DroppedParameter {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly reason: string;
}

/**
 * Split an operation's parameters into the ones a caller may set and the ones dropped (`noted`,
 * each with its reason for the tool's description): framing, hop-by-hop and adapter-set headers,
 * and names a credential of the operation occupies.
 */
export function screenParameters<P extends { readonly name: string; readonly in: ParameterLocation }>(
  parameters: readonly P[],
  credentials: CredentialNames,
): { readonly kept: P[]; readonly noted: DroppedParameter[] } {
  const kept: P[] = [];
  const noted: DroppedParameter[] = [];
  for (const param of parameters) {
    const framing = param.in === 'header' ? reservedHeaderReason(param.name) : undefined;
    const scheme = credentialCollision(credentials, param.in, param.name);
    if (framing !== undefined) noted.push({ name: param.name, in: param.in, reason: framing });
    else if (scheme !== undefined)
      noted.push({
        name: param.name,
        in: param.in,
        reason: `the credential of security scheme '${scheme}' goes there, from the service's secrets`,
      });
    else kept.push(param);
  }
  return { kept, noted };
}

/** The note appended to a tool's description for its dropped parameters. */
export function droppedNote(dropped: readonly DroppedParameter[]): string {
  const items = dropped.map((d) => `${d.in} \`${d.name}\` (${d.reason})`);
  return `Parameters not settable through this tool: ${items.join('; ')}.`;
}

const SLOT_LOCATIONS = [
  ['headers', 'header'],
  ['query', 'query'],
  ['cookies', 'cookie'],
] as const;

/**
 * Throw, naming the parameter, when the caller sets a framing or hop-by-hop header or a name a
 * credential of the operation occupies. Checks every key of the slots, declared or not: the
 * stored plan may come from an older version that still declared them, and the adapter does not
 * rely on the host's schema validation for this.
 */
export function refuseReservedParameters(
  parameters: Readonly<Record<string, unknown>>,
  credentials: CredentialNames,
): void {
  for (const [slotName, location] of SLOT_LOCATIONS) {
    const slot = parameters[slotName];
    if (typeof slot !== 'object' || slot === null) continue;
    for (const [name, value] of Object.entries(slot)) {
      if (value === undefined) continue;
      const framing = location === 'header' ? reservedHeaderReason(name) : undefined;
      if (framing !== undefined) throw new Error(`header parameter '${name}' is not allowed: ${framing}`);
      const scheme = credentialCollision(credentials, location, name);
      if (scheme !== undefined)
        throw new Error(
          `${location} parameter '${name}' is not allowed: the credential of security scheme '${scheme}' goes there`,
        );
    }
  }
}
