import type { ServiceState } from './service-definition';

/**
 * What an adapter keeps for one connection when it signs in itself (OAuth of an MCP server: the
 * tokens, the registered client, discovery results, the authorization under way). The host seals
 * it in the connection's row and never shows it: values are secrets, written as JSON.
 *
 * `write` merges a patch field by field; a field set to `undefined` is deleted. A read after a
 * write sees it, on every host (the row is read each time).
 *
 * @example
 * ```ts
 * const store = context.credentials?.store(state.id);
 * await store?.write({ tokens: { access_token: 'at-1', token_type: 'Bearer' } });
 * (await store?.read())?.tokens; // { access_token: 'at-1', token_type: 'Bearer' }
 * ```
 */
export interface CredentialStore {
  read(): Promise<Record<string, unknown>>;
  write(patch: Readonly<Record<string, unknown>>): Promise<void>;
}

/**
 * The host's side of adapters that sign connections in themselves, handed in `setup` (absent
 * when the host does not offer it: such an adapter then reaches only servers without sign-in).
 *
 * @example
 * ```ts
 * async setup(context) {
 *   credentials = context.credentials;
 * },
 * // when a call finds the server wants a new authorization:
 * credentials?.needsAuthorization(state.id, 'the server asked for scope repo:write');
 * ```
 */
export interface AdapterCredentials {
  /** The store of the connection a hydrated state is (`ServiceState.id`: a service or `<service>@<connection>`). */
  store(stateId: string): CredentialStore;
  /**
   * Mark the connection of `stateId` as needing a person to authorize it again (its status shows
   * `reauthorization_required` with `message`); calls fail until someone authorizes it.
   */
  needsAuthorization(stateId: string, message: string): Promise<void>;
  /** Where the authorization server sends the person's browser back: `<public URL>/oauth/callback`, when known. */
  readonly redirectUrl: string | undefined;
  /**
   * The https URL of the host's OAuth client ID metadata document (its `client_id`), when it has
   * one: used instead of registering a client where the authorization server supports it.
   */
  readonly clientMetadataUrl: string | undefined;
  /** The client name authorization servers show on their consent page. */
  readonly clientName: string;
}

/** What the host asks {@link AdapterAuthorization.begin} for. */
export interface AuthorizationRequest {
  /**
   * The `state` the authorization URL must carry: the host finds the connection by it when the
   * browser comes back, so the adapter uses it as given.
   */
  readonly state: string;
  /** Scopes an operator asked for; absent: what the adapter or the server chooses. */
  readonly scopes?: readonly string[];
}

/** Outcome of {@link AdapterAuthorization.begin}. */
export type AuthorizationBegun =
  /** A person must open this URL (the host answers it to the caller of the authorize route). */
  | { readonly authorizationUrl: string }
  /** Signed in without a person (a grant of the service's own, or tokens that could be refreshed). */
  | { readonly authorized: true };

/** The query the authorization server sent the browser back with. */
export interface AuthorizationCallbackQuery {
  readonly code?: string;
  readonly state?: string;
  readonly iss?: string;
  readonly error?: string;
  readonly error_description?: string;
}

/**
 * Optional part of an adapter that signs connections in itself, in two halves the host drives:
 * `POST /services/:id/connections/:name/authorize` calls `begin`, `GET /oauth/callback` calls
 * `finish` for the connection whose authorization carried the callback's `state`. Both keep what
 * they obtain in the connection's {@link CredentialStore}; neither answers a token.
 *
 * @example
 * ```ts
 * authorization: {
 *   async begin(state, request) {
 *     const session = sessionOf(state); // over context.credentials.store(state.id)
 *     return session.start({ state: request.state });
 *   },
 *   async finish(state, query) {
 *     await sessionOf(state).redeem(query);
 *   },
 * },
 * ```
 */
export interface AdapterAuthorization {
  /** True when `state`'s service signs in through the adapter (the host routes its connections here). */
  signsIn(state: Pick<ServiceState, 'adapterDomain'>): boolean;
  begin(state: ServiceState, request: AuthorizationRequest): Promise<AuthorizationBegun>;
  finish(state: ServiceState, query: AuthorizationCallbackQuery): Promise<void>;
}
