import type { LookupFunction } from 'node:net';
import type { OutboundPolicy } from '@cyrnel/sdk';
import { guardedLookup as sharedLookup } from '@cyrnel/sdk/node';

/** A refusal of the outbound policy, told apart from network errors by the transport. */
export class RefusedConnection extends Error {
  constructor(refusal: unknown) {
    super(refusal instanceof Error ? refusal.message : String(refusal), { cause: refusal });
    this.name = 'RefusedConnection';
  }
}

/** The SDK's guarded lookup, its refusals as {@link RefusedConnection}s. */
export function guardedLookup(policy: OutboundPolicy, port: number): LookupFunction {
  return sharedLookup(policy, port, { refused: (refusal) => new RefusedConnection(refusal) });
}
