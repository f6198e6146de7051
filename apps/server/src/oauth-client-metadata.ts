import type { AppEnv, RouteGroup } from '@cyrnel/http';
import { Hono } from 'hono';

/** Where the server serves its OAuth client ID metadata document. */
export const CLIENT_METADATA_PATH = '/oauth-client.json';

/** Options of {@link oauthClientMetadata}. */
export interface OAuthClientMetadataOptions {
  /** The URL clients reach this server at (`--public-url`, else the listening URL). */
  readonly publicUrl: () => string;
  /** `--oauth-client-metadata-url`: the document's URL when it is served elsewhere (a proxy, another host). */
  readonly url?: string;
}

/**
 * cyrnel as an OAuth client of MCP servers: its client ID metadata document, so an authorization
 * server that supports them takes the document's https URL as `client_id` instead of a
 * registration. The URL is `--oauth-client-metadata-url`, else `<public-url>/oauth-client.json`
 * when the public URL is https (the specification asks for https); over http there is none and
 * MCP servers' sign-in registers a client where the server allows it.
 *
 * @example
 * ```ts
 * const metadata = oauthClientMetadata({ publicUrl: () => 'https://cyrnel.example.com' });
 * metadata.url(); // 'https://cyrnel.example.com/oauth-client.json'
 * createApp(host, { routes: [metadata.group] });
 * ```
 */
export function oauthClientMetadata(options: OAuthClientMetadataOptions): {
  group: RouteGroup;
  url: () => string | undefined;
} {
  const base = () => options.publicUrl().replace(/\/+$/, '');
  const url = () => {
    if (options.url) return options.url;
    return base().startsWith('https:') ? `${base()}${CLIENT_METADATA_PATH}` : undefined;
  };
  const app = new Hono<AppEnv>();
  app.get('/', (c) =>
    c.json(
      {
        client_id: url() ?? `${base()}${CLIENT_METADATA_PATH}`,
        client_name: 'cyrnel',
        client_uri: base(),
        redirect_uris: [`${base()}/oauth/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      200,
      { 'cache-control': 'public, max-age=300' },
    ),
  );
  return { group: { path: CLIENT_METADATA_PATH, app, auth: 'none' }, url };
}
