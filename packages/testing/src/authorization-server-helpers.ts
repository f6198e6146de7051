import { createSign, type KeyObject } from 'node:crypto';

/** The provider's cookie that leads the browser back from an interaction. */
export const RESUME_COOKIE = '_interaction_resume';

/** One request the test authorization server answered at its token or revocation endpoint. */
export interface RecordedRequest {
  readonly endpoint: 'token' | 'revocation';
  /** `authorization_code`, `client_credentials`, `refresh_token` (token endpoint only). */
  readonly grantType: string | undefined;
  /** The authenticated client, when the request named a known one. */
  readonly clientId: string | undefined;
  /** The `resource` parameter(s) of the request. */
  readonly resource: string | string[] | undefined;
  /** The HTTP status the server answered. */
  readonly status: number;
  /** Whether that status was 2xx. */
  readonly ok: boolean;
}

/** Claims of a JWT the test server signs on request: registered ones and any others. */
export interface TestJwtClaims {
  readonly sub?: string;
  readonly aud?: string | string[];
  readonly iss?: string;
  /** Seconds since the epoch; negative values are not special. */
  readonly exp?: number;
  readonly iat?: number;
  readonly [claim: string]: unknown;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An RS256 JWT of `claims`, typed `at+jwt` like the server's own access tokens. */
export function signWithKey(
  key: KeyObject,
  kid: string,
  issuer: string,
  claims: TestJwtClaims,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload = { iss: issuer, iat: now, exp: now + 3600, ...claims };
  const input = `${base64url({ alg: 'RS256', typ: 'at+jwt', kid })}.${base64url(payload)}`;
  const signature = createSign('RSA-SHA256').update(input).sign(key).toString('base64url');
  return Promise.resolve(`${input}.${signature}`);
}

/**
 * Follow an authorization URL as a browser would, without a cookie jar: every redirect on the
 * authorization server's origin is followed, and the first that leaves it (the client's redirect
 * URI with `code` and `state`, or `error`) is answered without being requested. Throws when the
 * server answers anything but a redirect (its body in the message).
 *
 * @example
 * ```ts
 * const callback = await followAuthorization(authorizationUrl);
 * callback.searchParams.get('code');
 * ```
 */
export async function followAuthorization(authorizationUrl: string | URL, maxHops = 10): Promise<URL> {
  let url = new URL(authorizationUrl);
  const origin = url.origin;
  for (let hop = 0; hop < maxHops; hop++) {
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || !location) {
      const text = await response.text();
      throw new Error(`the authorization server answered ${response.status}: ${text.slice(0, 500)}`);
    }
    await response.body?.cancel();
    url = new URL(location, url);
    if (url.origin !== origin) return url;
  }
  throw new Error(`more than ${maxHops} redirects on the authorization server`);
}
