import type * as OAuth from 'oauth4webapi';
import { cyrnelError, isCyrnelError } from '../errors';
import { httpOptions } from './oauth-client';
import { oauthFailure } from './oauth-errors';
import { loadOAuthLibrary } from './oauth-library';
import type { OAuthClientOptions, OAuthServerMetadata } from './oauth-types';

/** Options of {@link discoverAuthorizationServer}: how to reach the server. */
export type DiscoveryOptions = Pick<OAuthClientOptions, 'outbound' | 'allowHttp' | 'timeoutMs' | 'signal'>;

function strings(value: unknown): readonly string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}

/**
 * Read an authorization server's metadata from its issuer: RFC 8414
 * (`/.well-known/oauth-authorization-server`) first, then OpenID Connect Discovery
 * (`/.well-known/openid-configuration`). The document must name the same issuer. Failures are
 * 502 `upstream_failed` (an outbound refusal stays 403 `outbound_refused`).
 *
 * @example
 * ```ts
 * const server = await discoverAuthorizationServer('https://login.example.com', { outbound });
 * const tokens = await clientCredentialsGrant({ server, client, outbound }, { scopes: ['read'] });
 * server.jwksUri; // where its signing keys are
 * ```
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: DiscoveryOptions,
): Promise<OAuthServerMetadata> {
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    throw cyrnelError('invalid_request', `the issuer ${JSON.stringify(issuer.slice(0, 200))} is not a URL`);
  }
  const oauth = await loadOAuthLibrary();
  const http = httpOptions(oauth, options) as unknown as OAuth.HttpRequestOptions<'GET'>;
  let last: unknown;
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    try {
      const response = await oauth.discoveryRequest(issuerUrl, { ...http, algorithm });
      return describe(await oauth.processDiscoveryResponse(issuerUrl, response));
    } catch (error) {
      if (isCyrnelError(error)) throw error;
      last = error;
    }
  }
  throw oauthFailure(last, `the discovery of ${issuerUrl.origin}`);
}

function describe(as: OAuth.AuthorizationServer): OAuthServerMetadata {
  if (!as.token_endpoint)
    throw cyrnelError('upstream_failed', `the metadata of ${as.issuer} names no token endpoint`);
  const optional = (name: string, value: unknown) => (value === undefined ? {} : { [name]: value });
  return {
    issuer: as.issuer,
    tokenUrl: as.token_endpoint,
    ...optional('authorizationUrl', as.authorization_endpoint),
    ...optional('revocationUrl', as.revocation_endpoint),
    ...optional('jwksUri', as.jwks_uri),
    ...optional('scopesSupported', strings(as.scopes_supported)),
    ...optional('grantTypesSupported', strings(as.grant_types_supported)),
    ...optional('codeChallengeMethodsSupported', strings(as.code_challenge_methods_supported)),
    metadata: { ...as },
  };
}
