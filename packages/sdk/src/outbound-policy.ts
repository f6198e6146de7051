/**
 * The host's rule for where a module may open outbound connections (cyrnel extension, issue 13):
 * the operator's private-address switches, and never cyrnel's own API. A module that connects
 * anywhere on behalf of agent code (an adapter's tool calls) checks every address it is about to
 * connect to — each address a host name resolves to, an IP-literal host directly, every redirect
 * hop — and fails the call when `check` throws.
 *
 * @example
 * ```ts
 * import { lookup } from 'node:dns';
 * import type { LookupFunction } from 'node:net';
 * import type { OutboundPolicy } from '@cyrnel/sdk';
 *
 * // A `lookup` for `http.request` that vets every answer, so DNS rebinding cannot slip in
 * // between the check and the connect.
 * function guardedLookup(policy: OutboundPolicy, port: number): LookupFunction {
 *   return (hostname, options, callback) =>
 *     lookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
 *       if (error) return callback(error, '', 4);
 *       try {
 *         for (const { address } of addresses) policy.check(address, port, hostname);
 *       } catch (refused) {
 *         return callback(refused as NodeJS.ErrnoException, '', 4);
 *       }
 *       // With `autoSelectFamily` (the default) node asks for every address at once.
 *       if (options.all) callback(null, addresses);
 *       else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
 *     });
 * }
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
