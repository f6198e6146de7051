/**
 * The host's rule for where a module may open outbound connections: the operator's
 * private-address switches, and never cyrnel's own API, so that agent code cannot reach private
 * addresses or the server itself through a tool call or its redirects. A module that connects
 * anywhere on behalf of agent code (an adapter's tool calls) checks every address it is about to
 * connect to — each address a host name resolves to, an IP-literal host directly, every redirect
 * hop — and fails the call when `check` throws.
 *
 * @example
 * ```ts
 * import { guardedLookup } from '@cyrnel/sdk/node';
 *
 * // Every address a host name resolves to is vetted inside the socket's lookup, so DNS
 * // rebinding cannot slip in between the check and the connect; an IP literal is checked first.
 * const request = http.request(url, { lookup: guardedLookup(context.outbound, port) });
 * ```
 */
export interface OutboundPolicy {
  /**
   * Throw an `Error` whose message says why (`refusing to connect to 127.0.0.1:9371 (...)`) when
   * a connection to `address` (an IP literal) on `port` may not be opened; return otherwise.
   * `hostname` is what the caller asked for (the URL's host), used in the message only.
   */
  check(address: string, port: number, hostname: string): void;
}
