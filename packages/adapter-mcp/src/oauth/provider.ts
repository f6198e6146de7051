import { randomBytes } from 'node:crypto';
import type {
  FetchLike,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthCredentialStore } from './credential-store';
import { type MachineGrant, machineProviderParts } from './machine';

/** Options of {@link createStoredOAuthProvider}. */
export interface StoredOAuthProviderOptions {
  /** Where this connection's tokens, client, discovery and pending flow are kept. */
  readonly store: OAuthCredentialStore;
  /** The host's callback (`https://cyrnel.example/oauth/callback`, `http://127.0.0.1:9371/oauth/callback`). */
  readonly redirectUrl: string;
  /** The client's name shown by authorization servers on their consent page. */
  readonly clientName: string;
  /**
   * The https URL of the client ID metadata document the host serves (its `client_id` is this
   * URL, its `redirect_uris` hold `redirectUrl`): used instead of dynamic registration where the
   * authorization server says `client_id_metadata_document_supported`.
   */
  readonly clientMetadataUrl?: string;
  /** A client registered by hand with the authorization server (the operator's `client_id`, `client_secret`). */
  readonly preRegistered?: OAuthClientInformationMixed;
  /**
   * A grant without a person (client credentials, a signed assertion, cross-app access): no
   * redirect, tokens are asked for directly whenever the server refuses the current one.
   */
  readonly machine?: MachineGrant;
  /** The fetch a cross-app access grant reaches the enterprise IdP with. */
  readonly fetch?: FetchLike;
  /** A fresh `state` for each authorization (default: 32 random bytes, base64url). */
  readonly newState?: () => string;
  /**
   * Told the authorization URL when the SDK starts an authorization (nothing is opened here),
   * with the scope of the token in use then (a step-up compares them).
   */
  readonly onRedirect: (authorizationUrl: URL, current: { readonly tokenScope?: string }) => void;
}

/** 32 random bytes, base64url: a `state` no one guesses. */
export function randomState(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * An `OAuthClientProvider` of the MCP SDK over a credential store: the SDK runs discovery,
 * registration, PKCE, the token requests, refresh and step-up; this keeps what they produce in
 * the store and tells `onRedirect` where a person must go. It never opens a browser.
 *
 * @example
 * ```ts
 * const provider = createStoredOAuthProvider({
 *   store: memoryCredentialStore(),
 *   redirectUrl: 'http://127.0.0.1:9371/oauth/callback',
 *   clientName: 'cyrnel',
 *   onRedirect: (url) => console.log('open', url.href),
 * });
 * new StreamableHTTPClientTransport(new URL('https://mcp.example.com/mcp'), { authProvider: provider });
 * ```
 */
export function createStoredOAuthProvider(options: StoredOAuthProviderOptions): OAuthClientProvider {
  const { store } = options;
  const newState = options.newState ?? randomState;
  /** The `state` handed to the SDK for the authorization it is building. */
  let nextState: string | undefined;
  const metadata: OAuthClientMetadata = {
    client_name: options.clientName,
    redirect_uris: [options.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };

  const machine = options.machine
    ? machineProviderParts(options.machine, options.clientName, options.fetch)
    : undefined;

  return {
    get redirectUrl() {
      return machine ? undefined : options.redirectUrl;
    },
    get clientMetadata() {
      return machine?.clientMetadata ?? metadata;
    },
    ...(options.clientMetadataUrl && !machine ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    ...(machine
      ? {
          prepareTokenRequest: machine.prepareTokenRequest,
          ...(machine.addClientAuthentication
            ? { addClientAuthentication: machine.addClientAuthentication }
            : {}),
          ...(machine.saveAuthorizationServerUrl
            ? { saveAuthorizationServerUrl: machine.saveAuthorizationServerUrl }
            : {}),
          ...(machine.saveResourceUrl ? { saveResourceUrl: machine.saveResourceUrl } : {}),
        }
      : {}),
    state() {
      nextState = newState();
      return nextState;
    },
    async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
      return (await store.read()).client ?? machine?.client ?? options.preRegistered;
    },
    async saveClientInformation(client: StoredOAuthClientInformation) {
      await store.write({ client });
    },
    async tokens(): Promise<StoredOAuthTokens | undefined> {
      return (await store.read()).tokens;
    },
    async saveTokens(tokens: StoredOAuthTokens) {
      // When they were obtained (epoch seconds): with `expires_in`, when they expire.
      await store.write({ tokens, tokensObtainedAt: Math.floor(Date.now() / 1000) });
    },
    async saveCodeVerifier(codeVerifier: string) {
      if (nextState === undefined) throw new Error('the SDK saved a PKCE verifier before asking for a state');
      await store.write({ pending: { state: nextState, codeVerifier, startedAt: Date.now() } });
    },
    async codeVerifier() {
      const pending = (await store.read()).pending;
      if (!pending) throw new Error('no authorization is under way for this connection');
      return pending.codeVerifier;
    },
    async redirectToAuthorization(authorizationUrl: URL) {
      const { pending, tokens } = await store.read();
      const scope = authorizationUrl.searchParams.get('scope');
      if (pending && scope) await store.write({ pending: { ...pending, scope } });
      options.onRedirect(authorizationUrl, tokens?.scope ? { tokenScope: tokens.scope } : {});
    },
    async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
      return (await store.read()).discovery;
    },
    async saveDiscoveryState(discovery: OAuthDiscoveryState) {
      await store.write({ discovery });
    },
    async invalidateCredentials(scope) {
      if (scope === 'all')
        await store.write({ tokens: undefined, client: undefined, discovery: undefined, pending: undefined });
      else if (scope === 'client') await store.write({ client: undefined });
      else if (scope === 'tokens') await store.write({ tokens: undefined });
      else if (scope === 'verifier') await store.write({ pending: undefined });
      else if (scope === 'discovery') await store.write({ discovery: undefined });
    },
  };
}
