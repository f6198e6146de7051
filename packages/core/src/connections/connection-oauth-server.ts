import { isPlainObject, type OutboundPolicy } from '@cyrnel/sdk';
import type { OAuthFlow } from '@cyrnel/sdk/api';
import type { ServiceRow } from '../catalog/catalog-storage';
import { cyrnelError } from '../errors';
import { discoverAuthorizationServer } from '../oauth/discovery';
import type { OAuthClientOptions, OAuthServer } from '../oauth/oauth-types';
import type { ConnectionOAuthState } from './connection-oauth-state';

/** One flow of a scheme as the OpenAPI adapter describes it (`adapterDomain.oauth[scheme].flows`). */
interface FlowPlan {
  readonly authorizationUrl?: string;
  readonly tokenUrl: string;
  readonly refreshUrl?: string;
}

/** One scheme as the OpenAPI adapter describes it. */
interface SchemePlan {
  readonly type: 'oauth2' | 'openIdConnect';
  readonly openIdConnectUrl?: string;
  readonly flows: Partial<Record<OAuthFlow, FlowPlan>>;
  readonly requiredScopes: readonly string[];
}

/** What a connection signs in with: its scheme, flow, server and default scopes. */
export interface ResolvedScheme {
  readonly scheme: string;
  readonly flow: OAuthFlow;
  readonly server: OAuthServer;
  readonly scopes: readonly string[];
}

const isLoopback = (url: string): boolean => {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
  } catch {
    return false;
  }
};

/**
 * Whether `http:` is allowed for these URLs: only when every one is on loopback (a local
 * authorization server in development and tests); elsewhere OAuth needs `https:`.
 */
export const httpAllowed = (server: OAuthServer): boolean =>
  [server.tokenUrl, server.authorizationUrl, server.revocationUrl]
    .filter((url): url is string => url !== undefined)
    .every(isLoopback);

/** The OAuth schemes of a service's definition (the OpenAPI adapter's `adapterDomain.oauth`). */
function schemesOf(service: ServiceRow): Record<string, SchemePlan> {
  const domain = service.adapterDomain;
  const oauth = isPlainObject(domain) ? domain.oauth : undefined;
  return isPlainObject(oauth) ? (oauth as unknown as Record<string, SchemePlan>) : {};
}

/** The issuer an OpenID Connect discovery URL names. */
const issuerOf = (discoveryUrl: string): string =>
  discoveryUrl.replace(/\/\.well-known\/openid-configuration\/?$/, '');

/**
 * The scheme and flow a connection signs in with, from the request and the service's definition:
 * the scheme defaults to the service's only OAuth scheme, the flow to the authorization code
 * when the scheme offers it. An `openIdConnect` scheme's endpoints come from its discovery
 * document; an `oauth2` scheme's from the definition, with the issuer and revocation endpoint
 * learned from the token URL's origin when it publishes metadata (best effort).
 */
export async function resolveScheme(
  service: ServiceRow,
  requested: { scheme?: string; flow?: string },
  reach: Pick<OAuthClientOptions, 'outbound'> & { readonly outbound: OutboundPolicy },
): Promise<ResolvedScheme> {
  const schemes = schemesOf(service);
  const names = Object.keys(schemes);
  if (names.length === 0)
    throw cyrnelError('invalid_request', `service ${service.id} declares no OAuth security scheme`);
  const scheme = requested.scheme ?? (names.length === 1 ? names[0] : undefined);
  if (scheme === undefined || !Object.hasOwn(schemes, scheme))
    throw cyrnelError(
      'invalid_request',
      `scheme must name one of the OAuth security schemes of service ${service.id}: ${names.join(', ')}`,
      { details: [{ path: 'scheme', message: `one of ${names.join(', ')}` }] },
    );
  const plan = schemes[scheme] as SchemePlan;
  if (
    requested.flow !== undefined &&
    requested.flow !== 'authorizationCode' &&
    requested.flow !== 'clientCredentials'
  )
    throw cyrnelError('invalid_request', 'flow must be authorizationCode or clientCredentials', {
      details: [{ path: 'flow', message: 'authorizationCode or clientCredentials' }],
    });
  if (plan.type === 'openIdConnect') {
    if (!plan.openIdConnectUrl)
      throw cyrnelError('invalid_request', `scheme ${scheme} names no openIdConnectUrl`);
    const metadata = await discoverAuthorizationServer(issuerOf(plan.openIdConnectUrl), {
      outbound: reach.outbound,
      allowHttp: isLoopback(plan.openIdConnectUrl),
    });
    const flow =
      (requested.flow as OAuthFlow | undefined) ??
      (metadata.authorizationUrl ? 'authorizationCode' : 'clientCredentials');
    const {
      metadata: _all,
      jwksUri: _j,
      scopesSupported: _s,
      grantTypesSupported: _g,
      codeChallengeMethodsSupported: _c,
      ...server
    } = metadata;
    return { scheme, flow, server, scopes: plan.requiredScopes };
  }
  const flow =
    (requested.flow as OAuthFlow | undefined) ??
    (plan.flows.authorizationCode ? 'authorizationCode' : 'clientCredentials');
  const flowPlan = plan.flows[flow];
  if (!flowPlan)
    throw cyrnelError('invalid_request', `scheme ${scheme} of service ${service.id} has no ${flow} flow`, {
      details: [
        { path: 'flow', message: `the scheme offers ${Object.keys(plan.flows).join(', ') || 'no flow'}` },
      ],
    });
  const server: OAuthServer = {
    tokenUrl: flowPlan.tokenUrl,
    ...(flowPlan.authorizationUrl ? { authorizationUrl: flowPlan.authorizationUrl } : {}),
  };
  return { scheme, flow, server: await withMetadata(server, reach.outbound), scopes: plan.requiredScopes };
}

/** The issuer and revocation endpoint of the token URL's origin, when it publishes metadata naming that token URL. */
async function withMetadata(server: OAuthServer, outbound: OutboundPolicy): Promise<OAuthServer> {
  try {
    const metadata = await discoverAuthorizationServer(new URL(server.tokenUrl).origin, {
      outbound,
      allowHttp: isLoopback(server.tokenUrl),
      timeoutMs: 10_000,
    });
    if (metadata.tokenUrl !== server.tokenUrl) return server;
    return {
      ...server,
      issuer: metadata.issuer,
      ...(metadata.revocationUrl ? { revocationUrl: metadata.revocationUrl } : {}),
    };
  } catch {
    return server;
  }
}

/** The options of an OAuth operation for a connection's state. */
export function clientOptions(
  state: Pick<ConnectionOAuthState, 'server' | 'clientId' | 'clientSecret'>,
  outbound: OutboundPolicy,
  redirectUri?: string,
): OAuthClientOptions {
  return {
    server: state.server,
    client: {
      clientId: state.clientId,
      ...(state.clientSecret === undefined ? {} : { clientSecret: state.clientSecret }),
      ...(redirectUri === undefined ? {} : { redirectUri }),
    },
    outbound,
    allowHttp: httpAllowed(state.server),
  };
}
