import { cyrnelError, isCyrnelError } from '../errors';
import { loadedOAuthLibrary } from './oauth-library';

/**
 * OAuth error codes that mean the server refused the grant or the client: wrong or revoked
 * credentials, a spent or expired code or refresh token, a person who said no.
 */
const REFUSALS = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'access_denied']);

function described(error: string, description: string | undefined): string {
  return description ? `${error} (${description.slice(0, 300)})` : error;
}

/**
 * A failure of an OAuth operation as a cyrnel error: a refused grant or client is 502
 * `upstream_unauthorized`, every other failure (another OAuth error, an unexpected answer, the
 * network) 502 `upstream_failed`; cyrnel's own errors (an outbound refusal) pass unchanged. The
 * message names the OAuth error and the server's description, never a token or secret.
 */
export function oauthFailure(error: unknown, what: string): Error {
  if (isCyrnelError(error)) return error;
  // The library's errors come from the library: not loaded, it threw none.
  const oauth = loadedOAuthLibrary();
  if (
    oauth &&
    (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError)
  ) {
    const text = described(error.error, error.error_description);
    return REFUSALS.has(error.error)
      ? cyrnelError('upstream_unauthorized', `the authorization server refused ${what}: ${text}`)
      : cyrnelError('upstream_failed', `the authorization server refused ${what}: ${text}`);
  }
  if (oauth && error instanceof oauth.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    const code = challenge?.parameters.error ?? `HTTP ${error.status}`;
    const text = described(code, challenge?.parameters.error_description);
    return error.status === 401 || REFUSALS.has(code)
      ? cyrnelError('upstream_unauthorized', `the authorization server refused ${what}: ${text}`)
      : cyrnelError('upstream_failed', `the authorization server refused ${what}: ${text}`);
  }
  const cause = error instanceof Error ? error : undefined;
  const nested = isCyrnelError(cause?.cause) ? cause?.cause : undefined;
  if (nested) return nested;
  return cyrnelError('upstream_failed', `${what} failed: ${cause?.message ?? String(error)}`, {
    cause: error,
  });
}
