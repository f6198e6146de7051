import type * as OAuth from 'oauth4webapi';

/** oauth4webapi's exports. */
export type OAuthLibrary = typeof OAuth;

let library: OAuthLibrary | undefined;

/**
 * oauth4webapi, loaded by the first OAuth operation rather than at start: a server that never
 * connects an account through OAuth does not keep it in memory (≈ 0.8 MB of RSS).
 *
 * @example
 * ```ts
 * const oauth = await loadOAuthLibrary();
 * const verifier = oauth.generateRandomCodeVerifier();
 * ```
 */
export async function loadOAuthLibrary(): Promise<OAuthLibrary> {
  library ??= await import('oauth4webapi');
  return library;
}

/** oauth4webapi when an OAuth operation has loaded it (its errors can only come from there). */
export function loadedOAuthLibrary(): OAuthLibrary | undefined {
  return library;
}
