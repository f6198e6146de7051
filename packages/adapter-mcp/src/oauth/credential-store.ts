import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/**
 * An authorization started and not finished yet: the `state` sent to the authorization server
 * and the PKCE verifier its code is redeemed with. Secret (the verifier).
 */
export interface PendingAuthorization {
  readonly state: string;
  readonly codeVerifier: string;
  /** When it started (ms since the epoch): a callback later than the flow's lifetime is refused. */
  readonly startedAt: number;
  /** The scope the authorization URL asked for, if any. */
  readonly scope?: string;
}

/**
 * What the OAuth client of one MCP server keeps for one connection (one service and one
 * principal). `tokens`, `client` (its `client_secret`) and `pending` (its verifier) are secrets:
 * a host stores the record encrypted and never shows it.
 */
export interface OAuthCredentials {
  /** The tokens (access, refresh, scope, expiry), stamped with the issuer that minted them. */
  readonly tokens?: StoredOAuthTokens;
  /** The client registered with the authorization server (dynamically, by metadata URL or by hand). */
  readonly client?: StoredOAuthClientInformation;
  /** Where the protected resource metadata and the authorization server's metadata were found. */
  readonly discovery?: OAuthDiscoveryState;
  /** The authorization under way, between the redirect and the callback. */
  readonly pending?: PendingAuthorization;
  /** When `tokens` were obtained (epoch seconds): with their `expires_in`, when they expire. */
  readonly tokensObtainedAt?: number;
}

/** The fields of {@link OAuthCredentials}. */
export type OAuthCredentialField = keyof OAuthCredentials;

/**
 * Where an MCP server's OAuth credentials of one connection live: the host's per-principal
 * connection record, encrypted. `write` merges a patch field by field; a field set to
 * `undefined` is deleted. Reads after a write see it (the SDK reads back what it just saved).
 *
 * @example
 * ```ts
 * const store: OAuthCredentialStore = {
 *   read: async () => JSON.parse(decrypt(await db.get(connectionId)) ?? '{}'),
 *   write: async (patch) => db.merge(connectionId, encrypt(patch)),
 * };
 * ```
 */
export interface OAuthCredentialStore {
  read(): Promise<OAuthCredentials>;
  write(patch: { [K in OAuthCredentialField]?: OAuthCredentials[K] | undefined }): Promise<void>;
}

/**
 * A credential store in memory (tests, the conformance client, one-off tool listings).
 *
 * @example
 * ```ts
 * const store = memoryCredentialStore();
 * await store.write({ client: { client_id: 'pre-registered' } });
 * (await store.read()).client?.client_id; // 'pre-registered'
 * ```
 */
export function memoryCredentialStore(initial: OAuthCredentials = {}): OAuthCredentialStore {
  let record: Record<string, unknown> = { ...initial };
  return {
    read: async () => structuredClone(record) as OAuthCredentials,
    write: async (patch) => {
      const next = { ...record };
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined) delete next[key];
        else next[key] = structuredClone(value);
      }
      record = next;
    },
  };
}
