import {
  createPrivateKeyJwtAuth,
  type FetchLike,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  requestJwtAuthorizationGrant,
} from '@modelcontextprotocol/client';

/**
 * A grant without a person (the extensions of the MCP authorization specification): the service's
 * own client credentials, given by the operator. Every field but ids is a secret.
 */
export type MachineGrant =
  /** `client_credentials` with `client_secret_basic`. */
  | { readonly kind: 'client_secret'; readonly clientId: string; readonly clientSecret: string }
  /** `client_credentials` with a `private_key_jwt` assertion signed by the operator's key. */
  | {
      readonly kind: 'private_key_jwt';
      readonly clientId: string;
      readonly privateKeyPem: string;
      readonly algorithm: string;
    }
  /**
   * Enterprise-managed authorization (cross-app access): the person's ID token from the
   * enterprise IdP is exchanged there for an identity assertion grant, which the MCP server's
   * authorization server exchanges for an access token (`jwt-bearer`).
   */
  | {
      readonly kind: 'cross_app_access';
      readonly clientId: string;
      readonly clientSecret: string;
      readonly idp: {
        readonly tokenEndpoint: string;
        readonly clientId: string;
        readonly clientSecret?: string;
        readonly idToken: string;
      };
    };

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The parts of an `OAuthClientProvider` a machine grant decides: no redirect URL (so the SDK's
 * `auth()` asks for tokens directly), the client, the token request and its client authentication.
 */
export function machineProviderParts(
  grant: MachineGrant,
  clientName: string,
  fetchFn: FetchLike | undefined,
): Pick<
  OAuthClientProvider,
  | 'clientMetadata'
  | 'prepareTokenRequest'
  | 'addClientAuthentication'
  | 'saveAuthorizationServerUrl'
  | 'saveResourceUrl'
> & { readonly client: { client_id: string; client_secret?: string } } {
  const metadata = (grantType: string, method: string): OAuthClientMetadata => ({
    client_name: clientName,
    redirect_uris: [],
    grant_types: [grantType],
    token_endpoint_auth_method: method,
  });
  if (grant.kind === 'client_secret')
    return {
      clientMetadata: metadata('client_credentials', 'client_secret_basic'),
      client: { client_id: grant.clientId, client_secret: grant.clientSecret },
      prepareTokenRequest: (scope) =>
        new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }),
    };
  if (grant.kind === 'private_key_jwt')
    return {
      clientMetadata: metadata('client_credentials', 'private_key_jwt'),
      client: { client_id: grant.clientId },
      prepareTokenRequest: (scope) =>
        new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }),
      addClientAuthentication: createPrivateKeyJwtAuth({
        issuer: grant.clientId,
        subject: grant.clientId,
        privateKey: grant.privateKeyPem,
        alg: grant.algorithm,
      }),
    };
  // Cross-app access: the SDK saves the issuer and the resource before it asks for the token.
  let issuer: string | undefined;
  let resource: string | undefined;
  return {
    clientMetadata: metadata(JWT_BEARER, 'client_secret_basic'),
    client: { client_id: grant.clientId, client_secret: grant.clientSecret },
    saveAuthorizationServerUrl: (url) => {
      issuer = url;
    },
    saveResourceUrl: (url) => {
      resource = url;
    },
    prepareTokenRequest: async (scope) => {
      if (!issuer || !resource)
        throw new Error('cross-app access needs the protected resource metadata of the MCP server');
      const { jwtAuthGrant } = await requestJwtAuthorizationGrant({
        tokenEndpoint: grant.idp.tokenEndpoint,
        audience: issuer,
        resource,
        idToken: grant.idp.idToken,
        clientId: grant.idp.clientId,
        ...(grant.idp.clientSecret ? { clientSecret: grant.idp.clientSecret } : {}),
        ...(scope ? { scope } : {}),
        ...(fetchFn ? { fetchFn } : {}),
      });
      return new URLSearchParams({
        grant_type: JWT_BEARER,
        assertion: jwtAuthGrant,
        ...(scope ? { scope } : {}),
      });
    },
  };
}
