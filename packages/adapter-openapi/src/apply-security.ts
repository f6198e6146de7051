import { isPlainObject } from '@cyrnel/sdk';
import type { SecuritySchemePlan } from './operation-model';
import { encodeComponent, encodeCookieName, percentEncode } from './serialize-parameter';

/** Where credentials go: the request being built. */
export interface CredentialTarget {
  readonly headers: Record<string, string>;
  readonly query: string[];
  readonly cookies: string[];
}

// RFC 6265 cookie-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E. Anything else (space, '"', ',',
// ';', '\\', controls, non-ASCII) would break the Cookie header, so only that is percent-encoded.
const NOT_COOKIE_OCTET = /[^\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]/gu;

/** A cookie value as sent: unchanged where RFC 6265 allows it (base64 keys keep `=`, `/`, `+`). */
function cookieValue(secret: string): string {
  return secret.replace(NOT_COOKIE_OCTET, encodeComponent);
}

function satisfiable(scheme: SecuritySchemePlan | undefined, secret: unknown): boolean {
  if (!scheme) return false;
  if (scheme.type === 'http' && scheme.scheme === 'basic') {
    return (
      isPlainObject(secret) && typeof secret.username === 'string' && typeof secret.password === 'string'
    );
  }
  // Mutual TLS needs a client certificate the secrets schema cannot carry.
  if (scheme.type === 'mutualTLS') return false;
  return typeof secret === 'string' && secret !== '';
}

function apply(scheme: SecuritySchemePlan, secret: unknown, target: CredentialTarget): void {
  if (scheme.type === 'apiKey') {
    const name = scheme.name ?? '';
    if (scheme.in === 'query') target.query.push(`${percentEncode(name)}=${percentEncode(secret as string)}`);
    else if (scheme.in === 'cookie')
      target.cookies.push(`${encodeCookieName(name)}=${cookieValue(secret as string)}`);
    else target.headers[name.toLowerCase()] = secret as string;
    return;
  }
  if (scheme.type === 'http' && scheme.scheme === 'basic') {
    const { username, password } = secret as { username: string; password: string };
    target.headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    return;
  }
  if (scheme.type === 'http' && scheme.scheme !== 'bearer') {
    const name = (scheme.scheme ?? '').charAt(0).toUpperCase() + (scheme.scheme ?? '').slice(1);
    target.headers.authorization = `${name} ${secret as string}`;
    return;
  }
  target.headers.authorization = `Bearer ${secret as string}`;
}

/**
 * Apply the first satisfiable security alternative. When none is, throw before any request, naming
 * the schemes (never a value).
 */
export function applySecurity(
  alternatives: readonly (readonly string[])[],
  schemes: Readonly<Record<string, SecuritySchemePlan>>,
  secrets: Readonly<Record<string, unknown>>,
  target: CredentialTarget,
): void {
  if (alternatives.length === 0) return;
  const chosen = alternatives.find((names) =>
    names.every((name) => satisfiable(schemes[name], secrets[name])),
  );
  if (!chosen) {
    const wanted = alternatives.map((names) => names.map((n) => `'${n}'`).join(' + ')).join(' or ');
    const undeclared = [...new Set(alternatives.flat())].filter((name) => !Object.hasOwn(schemes, name));
    const unsupported = [...new Set(alternatives.flat())].filter(
      (name) => schemes[name]?.type === 'mutualTLS',
    );
    const list = (names: string[]) => names.map((n) => `'${n}'`).join(', ');
    const note =
      (undeclared.length > 0 ? ` (not declared in the document: ${list(undeclared)})` : '') +
      (unsupported.length > 0 ? ` (mutual TLS is not supported: ${list(unsupported)})` : '');
    throw new Error(`missing credentials: this operation requires the secret ${wanted}${note}`);
  }
  for (const name of chosen) apply(schemes[name] as SecuritySchemePlan, secrets[name], target);
}
