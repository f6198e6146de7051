import {
  type AdapterAuthorization,
  type AdapterCredentials,
  type CyrnelError,
  cyrnelError,
  isPlainObject,
  type ModuleSetupContext,
  type ServiceState,
} from '@cyrnel/sdk';
import { extractWWWAuthenticateParams, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/client';
import type { HttpSpec, ServerSpec } from '../definition';
import { createGuardedFetch } from '../guarded-fetch';
import type { OAuthCredentialStore } from './credential-store';
import { machineGrantOf, preRegisteredOf, signsInWithOAuth } from './oauth-spec';
import { createOAuthSession, type OAuthSession } from './session';

/** Largest answer of an authorization server while signing in. */
const SIGN_IN_ANSWER_BYTES = 1024 * 1024;

/** The filled spec of a state: resolves placeholders with the state's config and secrets. */
type SpecOf = (state: ServiceState) => ServerSpec;

/** What {@link createHostSignIn} gives the adapter. */
export interface HostSignIn {
  /** The host's sign-in routes (`authorize`, `/oauth/callback`) for services behind OAuth. */
  readonly authorization: AdapterAuthorization;
  /** The OAuth session a connection's calls use (undefined: the server is not behind OAuth). */
  session(stateId: string, spec: ServerSpec): OAuthSession | undefined;
  /**
   * A call refused for want of authorization: the connection is marked (a person must authorize
   * it through the host) and the call fails without the authorization URL, which only the
   * connection's owner or an admin may get, from the authorize route. Other errors: undefined.
   */
  refused(stateId: string, error: CyrnelError): Promise<CyrnelError | undefined>;
}

/**
 * Ask the MCP server without a token, as a client's first request would (`initialize`), and read
 * its 401 challenge: where its protected resource metadata is and which scope it wants (the MCP
 * authorization specification's first step). Nothing when it answers anything else.
 */
async function challengeOf(
  spec: HttpSpec,
  fetch: typeof globalThis.fetch,
): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  const answer = await fetch(spec.url, {
    method: 'POST',
    headers: {
      ...spec.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'cyrnel', version: '0' },
      },
    }),
  });
  await answer.body?.cancel();
  if (answer.status !== 401) return {};
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(answer);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
}

/** The credentials port, or a clear refusal when the host offers none. */
function credentialsOf(context: ModuleSetupContext | undefined): AdapterCredentials {
  const credentials = context?.credentials;
  if (!credentials)
    throw cyrnelError(
      'invalid_request',
      'this host keeps no credentials for adapters: MCP servers behind OAuth cannot be signed in to',
    );
  return credentials;
}

/**
 * OAuth of MCP servers through the host: each connection (hydrated state) signs in on its own,
 * its tokens and client in the host's sealed per-connection store; a person authorizes through the
 * host's authorize route and callback, never through agent code.
 *
 * @example
 * ```ts
 * const signIn = createHostSignIn(() => context, (state) => resolveSpec(specOf(state.adapterDomain), state));
 * const session = signIn.session(state.id, spec); // for the connection's transport
 * ```
 */
export function createHostSignIn(context: () => ModuleSetupContext | undefined, specOf: SpecOf): HostSignIn {
  const httpSpec = (state: ServiceState): HttpSpec => {
    const spec = specOf(state);
    if (spec.transport !== 'http' || !spec.oauth)
      throw cyrnelError(
        'invalid_request',
        `service ${state.id} does not sign in with OAuth (its definition has no oauth)`,
      );
    return spec;
  };

  const sessionFor = (
    stateId: string,
    spec: HttpSpec,
    extra: { fetch?: typeof globalThis.fetch; state?: string } = {},
  ): OAuthSession => {
    const credentials = credentialsOf(context());
    const oauth = spec.oauth as NonNullable<HttpSpec['oauth']>;
    const machine = machineGrantOf(oauth);
    const preRegistered = preRegisteredOf(oauth);
    const redirectUrl = credentials.redirectUrl;
    if (!machine && !redirectUrl)
      throw cyrnelError(
        'invalid_request',
        'the server does not know its public URL for the OAuth callback (set --public-url)',
      );
    const given = extra.state;
    return createOAuthSession({
      serverUrl: spec.url,
      store: credentials.store(stateId) as unknown as OAuthCredentialStore,
      // A grant without a person never redirects: any URL will do.
      redirectUrl: redirectUrl ?? 'http://127.0.0.1/oauth/callback',
      clientName: credentials.clientName,
      ...(credentials.clientMetadataUrl ? { clientMetadataUrl: credentials.clientMetadataUrl } : {}),
      ...(preRegistered ? { preRegistered } : {}),
      ...(machine ? { machine } : {}),
      ...(extra.fetch ? { fetch: extra.fetch } : {}),
      ...(oauth.skipIssuerCheck ? { skipIssuerMetadataValidation: true } : {}),
      ...(given ? { newState: () => given } : {}),
    });
  };

  /** One sign-in step over a fetch of its own (checked by the outbound policy), closed after. */
  const withFetch = async <T>(spec: HttpSpec, step: (fetch: typeof globalThis.fetch) => Promise<T>) => {
    const guarded = createGuardedFetch(context()?.outbound, spec.url, SIGN_IN_ANSWER_BYTES, undefined, {
      definitionHeaders: Object.keys(spec.headers),
    });
    try {
      return await step(guarded.fetch);
    } finally {
      await guarded.close();
    }
  };

  return {
    authorization: {
      signsIn: signsInWithOAuth,
      async begin(state, request) {
        const spec = httpSpec(state);
        return withFetch(spec, async (fetch) => {
          const session = sessionFor(state.id, spec, { fetch, state: request.state });
          const store = credentialsOf(context()).store(state.id);
          const stored = await store.read();
          // What the host shows of the connection: whether a person signs it in.
          const grant = spec.oauth?.grant ?? 'authorization_code';
          if (stored.grant !== grant) await store.write({ grant });
          // The scope a call's step-up asked for, else the definition's.
          const pending = isPlainObject(stored.pending) ? stored.pending : {};
          // Nothing found out yet: the server's own 401 names its resource metadata and scope.
          const challenge = stored.discovery === undefined ? await challengeOf(spec, fetch) : {};
          const scope =
            request.scopes?.join(' ') ??
            (typeof pending.scope === 'string' ? pending.scope : undefined) ??
            spec.oauth?.scopes?.join(' ') ??
            challenge.scope;
          const begun = await session.beginAuthorization({
            ...(scope ? { scope } : {}),
            ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
          });
          return begun.authorized ? { authorized: true } : { authorizationUrl: begun.authorizationUrl };
        });
      },
      async finish(state, query) {
        const spec = httpSpec(state);
        await withFetch(spec, (fetch) => sessionFor(state.id, spec, { fetch }).finishAuthorization(query));
      },
    },
    session(stateId, spec) {
      if (spec.transport !== 'http' || !spec.oauth) return undefined;
      return sessionFor(stateId, spec);
    },
    async refused(stateId, error) {
      const details = error.details as { authorization?: { scope?: string } } | undefined;
      if (error.reason !== 'upstream_unauthorized' || !isPlainObject(details?.authorization))
        return undefined;
      const scope = details.authorization.scope;
      const message = scope
        ? `the MCP server asked for scope ${scope}: a person must authorize the connection again`
        : 'the MCP server needs a person to authorize the connection';
      await credentialsOf(context()).needsAuthorization(stateId, message);
      return cyrnelError(
        'upstream_unauthorized',
        `${message} (an admin or the connection's owner starts it: POST /services/:serviceId/connections/:name/authorize, or Connect in the admin UI)`,
      );
    },
  };
}
