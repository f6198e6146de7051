/** A `Host` header that is only a host and a port: a DNS name, an IPv4 address or a bracketed IPv6 one. */
const PLAIN_HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i;

/** What {@link openApiServerUrl} looks at of a request. */
export interface ServerUrlRequest {
  /** The request's URL (its scheme is the one the request reached the server with). */
  readonly url: string;
  /** Its `Host` header, when it has one. */
  readonly host: string | undefined;
}

/**
 * The URL `GET /openapi.json` names in `servers`: `publicUrl` when given (without a trailing
 * slash), else the scheme and `Host` the request reached the server with, else `/` (the document's
 * own origin, the OpenAPI default). `Host` is whatever the client sent, so it is used only when
 * it is a plain host with an optional port (at most 253 characters): anything else (a path,
 * credentials, spaces, quotes) falls back to `/`. It only ever names the server to the same
 * client that sent it.
 *
 * @example
 * ```ts
 * openApiServerUrl({ url: 'http://127.0.0.1:8080/openapi.json', host: '127.0.0.1:8080' }); // 'http://127.0.0.1:8080'
 * openApiServerUrl({ url: 'http://x/openapi.json', host: 'x' }, 'https://cyrnel.example.com/'); // 'https://cyrnel.example.com'
 * ```
 */
export function openApiServerUrl(request: ServerUrlRequest, publicUrl?: string): string {
  if (publicUrl !== undefined && publicUrl !== '') return publicUrl.replace(/\/+$/, '');
  const host = request.host?.trim();
  if (host === undefined || host.length > 253 || !PLAIN_HOST.test(host)) return '/';
  const port = /:(\d+)$/.exec(host)?.[1];
  if (port !== undefined && Number(port) > 65_535) return '/';
  const scheme = request.url.startsWith('https:') ? 'https' : 'http';
  return `${scheme}://${host.toLowerCase()}`;
}
