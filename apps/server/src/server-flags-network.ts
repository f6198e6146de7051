import { parseCidr } from '@cyrnel/core';
import { isHttpUrl } from './flag-checks';
import { listFlag, switchFlag, textFlag } from './flag-spec';

function checkCidrs(items: readonly string[]): string | undefined {
  for (const item of items) {
    try {
      parseCidr(item);
    } catch (error) {
      return (error as Error).message;
    }
  }
  return undefined;
}

/**
 * The settings of how the server is reached and what it reaches: its public URL, OAuth (of `/mcp`
 * and of MCP servers behind OAuth), and the outbound policy of downloads and tool calls. Part of
 * `SERVER_SETTINGS`, in this order.
 */
export const NETWORK_SETTINGS = {
  publicUrl: textFlag({
    flag: 'public-url',
    env: 'CYRNEL_PUBLIC_URL',
    help: 'the URL clients reach this server at (`https://cyrnel.example.com`), behind a proxy or not',
    details:
      'names the OAuth protected resource `<public-url>/mcp`, the redirect URI of connections’ OAuth sign-in, `<public-url>/oauth/callback`, the `servers` of `GET /openapi.json` (without it, the address each request reached) and the admin UI in the `listening` lines',
    default: undefined,
    shownDefault: 'the bound address',
    check: (url) => (isHttpUrl(url) ? undefined : 'must be an http(s) URL'),
  }),
  oauthIssuer: textFlag({
    flag: 'oauth-issuer',
    env: 'CYRNEL_OAUTH_ISSUER',
    help: 'issuer URL of the OAuth authorization server whose access tokens sign in to `/mcp` (its metadata names its JWKS)',
    details:
      'a token signed by it for the audience, not expired, is the `agent` of the principal of its subject, made on first use; keys keep working',
    default: undefined,
    shownDefault: 'off',
    check: (url) => (isHttpUrl(url) ? undefined : 'must be an http(s) URL'),
  }),
  oauthClientMetadataUrl: textFlag({
    flag: 'oauth-client-metadata-url',
    env: 'CYRNEL_OAUTH_CLIENT_METADATA_URL',
    help: 'the https URL of the OAuth client ID metadata document MCP servers behind OAuth know this server by',
    details:
      'the server serves the document at `<public-url>/oauth-client.json`; set this when it is reachable at another URL (a proxy)',
    default: undefined,
    shownDefault:
      '`<public-url>/oauth-client.json` when the public URL is https, else none (a client is registered)',
    check: (url) => (url.startsWith('https://') && URL.canParse(url) ? undefined : 'must be an https URL'),
  }),
  oauthAudience: textFlag({
    flag: 'oauth-audience',
    env: 'CYRNEL_OAUTH_AUDIENCE',
    help: 'the audience (`aud`) an access token must name to sign in to `/mcp`',
    default: undefined,
    shownDefault: 'the public MCP URL, `<public-url>/mcp`',
  }),
  allowPrivateUrls: switchFlag({
    flag: 'allow-private-urls',
    env: 'CYRNEL_ALLOW_PRIVATE_URLS',
    help: 'let definition downloads and tool calls (each redirect hop too) reach private/loopback addresses',
    details:
      "cyrnel's own listen address and port stay unreachable from both (an install by URL at its own port, or redirected there, is 403 `forbidden`) whatever this and the CIDR lists say",
  }),
  urlAllowCidrs: listFlag({
    flag: 'url-allow-cidrs',
    env: 'CYRNEL_URL_ALLOW_CIDRS',
    help: 'comma-separated CIDRs downloads and tool calls may reach even if private',
    check: checkCidrs,
  }),
  urlDenyCidrs: listFlag({
    flag: 'url-deny-cidrs',
    env: 'CYRNEL_URL_DENY_CIDRS',
    help: 'comma-separated CIDRs downloads and tool calls may never reach (wins)',
    check: checkCidrs,
  }),
} as const;
