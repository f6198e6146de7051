import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { OutboundPolicy } from '@cyrnel/sdk';

/** A refusal of the outbound policy, told apart from network errors by the transport. */
export class RefusedConnection extends Error {
  constructor(refusal: unknown) {
    super(refusal instanceof Error ? refusal.message : String(refusal), { cause: refusal });
    this.name = 'RefusedConnection';
  }
}

/**
 * A `lookup` for `http.request` that checks every address the host name resolves to against the
 * policy before the socket connects to one of them, so a DNS answer that changes between a check
 * and the connect (rebinding) cannot reach a refused address: the socket only ever sees vetted
 * addresses. The same technique as the host's definition downloads.
 */
export function guardedLookup(policy: OutboundPolicy, port: number): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses: LookupAddress[]) => {
      if (error || addresses.length === 0) {
        callback(
          error ?? Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
          '',
          4,
        );
        return;
      }
      try {
        for (const entry of addresses) policy.check(entry.address, port, hostname);
      } catch (refusal) {
        callback(new RefusedConnection(refusal), '', 4);
        return;
      }
      const first = addresses[0] as LookupAddress;
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
