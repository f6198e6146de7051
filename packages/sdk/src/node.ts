import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { OutboundPolicy } from './outbound-policy';

/**
 * A `lookup` (for `http.request`, `net.connect` or an undici `Agent`'s `connect`) that checks
 * every address a host name resolves to against the outbound policy before the socket connects
 * to one of them, so a DNS answer that changes between a check and the connect (rebinding) cannot
 * reach a refused address: the socket only ever sees vetted addresses. An IP-literal host skips
 * `lookup`: check it with `policy.check` before connecting. `errors` choose what the connection
 * fails with: `refused` for a refusal (default: the policy's own error), `unresolved` for a name
 * that does not resolve (default: the resolver's error). Node only: `@cyrnel/sdk/node`.
 *
 * @example
 * ```ts
 * import { guardedLookup } from '@cyrnel/sdk/node';
 * const request = http.request(url, { lookup: guardedLookup(context.outbound, 443) });
 * ```
 */
export function guardedLookup(
  policy: OutboundPolicy,
  port: number,
  errors: GuardedLookupErrors = {},
): LookupFunction {
  const refused = errors.refused ?? ((refusal: unknown) => refusal as Error);
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses: LookupAddress[]) => {
      if (error || addresses.length === 0) {
        const failure =
          error ?? Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        callback(
          (errors.unresolved ? errors.unresolved(hostname, failure) : failure) as NodeJS.ErrnoException,
          '',
          4,
        );
        return;
      }
      try {
        for (const entry of addresses) policy.check(entry.address, port, hostname);
      } catch (refusal) {
        callback(refused(refusal) as NodeJS.ErrnoException, '', 4);
        return;
      }
      const first = addresses[0] as LookupAddress;
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/** What a {@link guardedLookup}'s connection fails with. */
export interface GuardedLookupErrors {
  /** A refusal of the policy as the error to fail with. */
  readonly refused?: (refusal: unknown) => Error;
  /** A name that does not resolve, as the error to fail with. */
  readonly unresolved?: (hostname: string, error: Error) => Error;
}

export type { EgressAnswer, EgressRequest } from './egress-frames';
export { createEgressFrameReader, encodeEgressFrame } from './egress-frames';
