import { cyrnelError, isPlainObject } from '@cyrnel/sdk';
import { formFieldPlan } from './encode-body';
import type { BodyPlan, ParameterLocation, ParameterPlan, SecuritySchemePlan } from './operation-model';
import { encodeCookieName, serializeQuery } from './serialize-parameter';

/**
 * The names the credentials of a call occupy, per location, each mapped to what owns it
 * ("the credential of security scheme 'queryKey'"), for messages that never hold a secret.
 */
export interface CredentialNames {
  /** Query names, exact (as the scheme names them; the receiver percent-decodes what is sent). */
  readonly query: ReadonlyMap<string, string>;
  /** Header names, lower-case. */
  readonly header: ReadonlyMap<string, string>;
  /** Cookie names as sent (encoded), lower-case. */
  readonly cookie: ReadonlyMap<string, string>;
}

const SECRET_HEADERS_OWNER = "a credential of the service's secret headers";

/** The cookie names a `Cookie` header value carries (`a=1; b=2` → `a`, `b`). */
export function cookieNamesOf(header: string): string[] {
  return header
    .split(/[;,]/)
    .map((pair) => (pair.split('=')[0] ?? '').trim())
    .filter((name) => name !== '');
}

/**
 * Every name a credential of the operation may be sent under: each security scheme named by any of
 * its security alternatives, whichever the call ends up using (apiKey in query, header or cookie;
 * `Authorization` for http, OAuth2 and OpenID Connect schemes; `Cookie` for a cookie key, as a header
 * parameter of that name would go in front of it), and each header of `secrets.headers`, sent on every
 * call (the cookies of a secret `Cookie` header too). A parameter sent under such a name could
 * duplicate or override the secret (`?api_key=mine&api_key=secret`), so none is.
 *
 * @example
 * ```ts
 * const names = credentialNames([['key']], { key: { type: 'apiKey', in: 'query', name: 'api_key' } });
 * names.query.get('api_key'); // "the credential of security scheme 'key'"
 * ```
 */
export function credentialNames(
  security: readonly (readonly string[])[],
  schemes: Readonly<Record<string, SecuritySchemePlan>>,
  secretHeaders: Readonly<Record<string, string>> = {},
): CredentialNames {
  const query = new Map<string, string>();
  const header = new Map<string, string>();
  const cookie = new Map<string, string>();
  for (const schemeName of new Set(security.flat())) {
    const scheme = Object.hasOwn(schemes, schemeName) ? schemes[schemeName] : undefined;
    const owner = `the credential of security scheme '${schemeName}'`;
    if (!scheme || scheme.type === 'mutualTLS') continue;
    if (scheme.type !== 'apiKey') header.set('authorization', owner);
    else if (scheme.in === 'query') query.set(scheme.name ?? '', owner);
    else if (scheme.in === 'cookie') {
      cookie.set(encodeCookieName(scheme.name ?? '').toLowerCase(), owner);
      header.set('cookie', owner);
    } else header.set((scheme.name ?? '').toLowerCase(), owner);
  }
  for (const [name, value] of Object.entries(secretHeaders)) {
    header.set(name.toLowerCase(), SECRET_HEADERS_OWNER);
    if (name.toLowerCase() === 'cookie')
      for (const sent of cookieNamesOf(value)) cookie.set(sent.toLowerCase(), SECRET_HEADERS_OWNER);
  }
  return { query, header, cookie };
}

/** What owns the credential a parameter of this declared name and location would collide with. */
export function credentialCollision(
  names: CredentialNames,
  location: ParameterLocation,
  name: string,
): string | undefined {
  if (location === 'query') return names.query.get(name);
  if (location === 'header') return names.header.get(name.toLowerCase());
  if (location === 'cookie') return names.cookie.get(encodeCookieName(name).toLowerCase());
  return undefined;
}

const SLOT_OF: Record<ParameterLocation | 'body', string> = {
  path: 'path',
  query: 'query',
  header: 'headers',
  cookie: 'cookies',
  body: 'body',
};

/**
 * The error of a call refused for one parameter (or body field): `invalid_parameters`, naming it
 * and why (never a value: the reason names a credential's owner, not its secret).
 */
export function parameterRefused(location: ParameterLocation | 'body', name: string, reason: string): Error {
  const what = location === 'body' ? 'body field' : `${location} parameter`;
  const message = `${what} '${name}' is not allowed: ${reason}`;
  return cyrnelError('invalid_parameters', message, {
    details: [{ path: `/${SLOT_OF[location]}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`, message }],
  });
}

// Decode valid %XX runs (a malformed escape stays as is, as lenient receivers keep it).
function percentDecode(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

// The names a receiver may read from one name on the wire: as sent, percent-decoded, with `+` as a
// space (form decoding), and the part before `[` (PHP, Rack and `qs` read `a[b]` as a key of `a`).
function readings(wire: string): Set<string> {
  const decoded = [wire, percentDecode(wire), percentDecode(wire.replaceAll('+', ' '))];
  const out = new Set(decoded);
  for (const name of decoded) if (name.includes('[')) out.add(name.slice(0, name.indexOf('[')));
  return out;
}

// The owner of a credential whose name one of `readings` matches. The parameter's own declared name
// (the document's choice, screened when the definition was generated) compares exactly; every other
// name (an object key, a name inside a value kept literal by allowReserved) is the caller's choice,
// so it compares case-insensitively too (ASP.NET, for one, reads query names that way).
function owner(
  names: ReadonlyMap<string, string>,
  candidates: Iterable<string>,
  declared: string,
): string | undefined {
  for (const name of candidates) {
    const exact = names.get(name);
    if (exact !== undefined) return exact;
    if (name === declared) continue;
    for (const [credential, who] of names) if (credential.toLowerCase() === name.toLowerCase()) return who;
  }
  return undefined;
}

/**
 * Throw `invalid_parameters` when a serialised query parameter would reach the upstream under a
 * credential's name, in any style: the names of `pairs` are read as a receiver reads them (split at
 * `&` and `;`, percent-decoded, `+` as space, before `[`), so an exploded object key, a deepObject
 * key or an `&name=` kept literal by `allowReserved` cannot add `api_key=…` in front of the secret.
 */
export function refuseShadowingQuery(
  plan: ParameterPlan,
  pairs: readonly string[],
  names: CredentialNames,
): void {
  const shadow = queryShadow(pairs, names, plan.name);
  if (shadow) throw parameterRefused('query', plan.name, shadowReason(shadow.wire, 'query', shadow.who));
}

// The first name of query-style pairs a receiver reads as a query credential's name, and its owner.
function queryShadow(
  pairs: readonly string[],
  names: CredentialNames,
  declared: string,
): { readonly wire: string; readonly who: string } | undefined {
  if (names.query.size === 0) return undefined;
  for (const pair of pairs) {
    for (const piece of pair.split(/[&;]/)) {
      const wire = piece.split('=')[0] ?? '';
      const who = owner(names.query, readings(wire), declared);
      if (who !== undefined) return { wire, who };
    }
  }
  return undefined;
}

/**
 * Throw `invalid_parameters` when a form-urlencoded or multipart body field would be read under a
 * query credential's name (the form's serialised names, or the part names, compared like query
 * names, case-insensitively). Frameworks merge body fields into the query parameters, the body
 * winning (PHP's `$_REQUEST`, Laravel's `input()`), so `api_key=mine` in a form body would shadow the
 * `?api_key=` credential as surely as in the query. JSON and other bodies are data, not names: not
 * checked.
 */
export function refuseShadowingFields(plan: BodyPlan, value: unknown, names: CredentialNames): void {
  if (names.query.size === 0 || !isPlainObject(value)) return;
  if (plan.kind !== 'form' && plan.kind !== 'multipart') return;
  for (const [field, item] of Object.entries(value)) {
    if (item === undefined) continue;
    // A multipart part is named by the key as is; a form field by what its style makes of it.
    const pairs = plan.kind === 'form' ? serializeQuery(formFieldPlan(plan, field), item) : [field];
    const shadow = queryShadow(pairs, names, '');
    if (shadow) throw parameterRefused('body', field, shadowReason(shadow.wire, 'form field', shadow.who));
  }
}

/**
 * Throw `invalid_parameters` when a serialised cookie parameter would send a cookie of a credential's
 * name (compared case-insensitively, as sent and percent-decoded, and before `[`): an exploded object's
 * keys become cookie names.
 */
export function refuseShadowingCookies(
  plan: ParameterPlan,
  pairs: readonly string[],
  names: CredentialNames,
): void {
  if (names.cookie.size === 0) return;
  for (const pair of pairs) {
    for (const piece of pair.split(/[;,]/)) {
      const wire = (piece.split('=')[0] ?? '').trim();
      const candidates = [...readings(wire)].map((name) => name.toLowerCase());
      const who = owner(names.cookie, candidates, plan.name.toLowerCase());
      if (who !== undefined) throw parameterRefused('cookie', plan.name, shadowReason(wire, 'cookie', who));
    }
  }
}

function shadowReason(wire: string, location: 'query' | 'cookie' | 'form field', who: string): string {
  return `it would send ${location} name '${wire}', where ${who} goes`;
}
