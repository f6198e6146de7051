import { type CredentialNames, credentialCollision, parameterRefused } from './credential-names';
import type { ParameterLocation } from './operation-model';

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
    const owner = credentialCollision(credentials, param.in, param.name);
    if (framing !== undefined) noted.push({ name: param.name, in: param.in, reason: framing });
    else if (owner !== undefined)
      noted.push({
        name: param.name,
        in: param.in,
        reason: `${owner} goes there, from the service's secrets`,
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
 * Throw `invalid_parameters`, naming the parameter, when the caller sets a framing or hop-by-hop
 * header or a name a credential of the call occupies (a secret header's name included). Checks
 * every key of the slots, declared or not: the stored plan may come from an older version that
 * still declared them, and the adapter does not rely on the host's schema validation for this.
 * What a value serialises to (object keys as names) is checked by `refuseShadowingQuery` and
 * `refuseShadowingCookies`.
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
      if (framing !== undefined) throw parameterRefused('header', name, framing);
      const owner = credentialCollision(credentials, location, name);
      if (owner !== undefined) throw parameterRefused(location, name, `${owner} goes there`);
    }
  }
}
