import { networkInterfaces } from 'node:os';
import type { OutboundPolicy } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';
import { type AddressGuardOptions, createAddressGuard } from './address-guard';
import { anyCidrContains, parseAddress, parseCidr } from './cidr';
import { embeddedIPv4 } from './embedded-ipv4';

/** Where cyrnel's own API listens: the bound address (maybe a wildcard) and port. */
export interface OwnEndpoint {
  readonly address: string;
  readonly port: number;
}

/** Options of {@link createOutboundPolicy}: the address guard's switches plus cyrnel's own endpoint. */
export interface OutboundPolicyOptions extends AddressGuardOptions {
  /**
   * Cyrnel's own listen address and port, read at every check (the port of a server started on
   * port 0 is only known after listen). Undefined: no own-endpoint rule yet.
   */
  readonly ownEndpoint?: () => OwnEndpoint | undefined;
}

// Addresses that reach this machine whatever it is bound to: loopback and the unspecified
// address (a connect to 0.0.0.0 or :: lands on a local socket).
const LOCAL = ['127.0.0.0/8', '::1/128', '0.0.0.0/32', '::/128'].map(parseCidr);

function sameAddress(a: string, b: string): boolean {
  const left = parseAddress(a);
  const right = parseAddress(b);
  return (
    left !== undefined && right !== undefined && left.family === right.family && left.value === right.value
  );
}

/** True when `address` (or an IPv4 address it carries) is this machine. */
function isLocal(address: string, bound: string): boolean {
  const parsed = parseAddress(address);
  if (!parsed) return false;
  const candidates = [parsed, ...embeddedIPv4(parsed)];
  if (candidates.some((candidate) => anyCidrContains(LOCAL, candidate))) return true;
  const own = [
    bound,
    ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)),
  ];
  const ownCidrs = own.filter((text) => parseAddress(text) !== undefined).map((text) => parseCidr(text));
  return candidates.some((candidate) => anyCidrContains(ownCidrs, candidate));
}

/**
 * Create the {@link OutboundPolicy} the host hands to modules: the same private-address guard as
 * definition downloads (with the operator's `allowPrivateUrls` / CIDR lists), and, whatever
 * those allow, never cyrnel's own API — its port on loopback, on the unspecified address, on any of
 * the machine's interface addresses, and the exact bound address and port. Throws `forbidden` (403).
 *
 * @example
 * ```ts
 * let listening: OwnEndpoint | undefined;
 * const outbound = createOutboundPolicy({ allowPrivateUrls: true, ownEndpoint: () => listening });
 * const host = await createHost({ storage, secretsKey, outbound });
 * // after listen:
 * listening = { address: '127.0.0.1', port: 9371 };
 * outbound.check('127.0.0.1', 9371, 'localhost'); // throws: cyrnel's own API
 * ```
 */
export function createOutboundPolicy(options: OutboundPolicyOptions = {}): OutboundPolicy {
  const guard = createAddressGuard(options);
  const policy: OutboundPolicy = {
    check(address, port, hostname) {
      const where = `${address.includes(':') ? `[${address}]` : address}:${port}`;
      const asked = hostname.replace(/^\[|\]$/g, '') === address ? '' : ` (${hostname})`;
      const own = options.ownEndpoint?.();
      if (own && port === own.port && (sameAddress(address, own.address) || isLocal(address, own.address))) {
        throw cyrnelError(
          'outbound_refused',
          `refusing to connect to ${where}${asked}: that is cyrnel's own API`,
        );
      }
      if (!guard.allows(address)) {
        throw cyrnelError(
          'outbound_refused',
          `refusing to connect to ${where}${asked} (private, loopback, link-local, metadata or denied address)`,
        );
      }
    },
  };
  described.set(policy, options);
  return policy;
}

/** A policy made by {@link createOutboundPolicy}, as data: what rebuilds it in another process. */
export interface OutboundPolicyData {
  readonly allowPrivateUrls: boolean;
  readonly allowCidrs: readonly string[];
  readonly denyCidrs: readonly string[];
  /** Cyrnel's own endpoint as it is now (undefined before the server listens). */
  readonly ownEndpoint: OwnEndpoint | undefined;
}

const described = new WeakMap<OutboundPolicy, OutboundPolicyOptions>();

/**
 * The data of a policy {@link createOutboundPolicy} made, or undefined for any other policy (an
 * embedder's own `check` cannot be moved to another process: direct calls then stay off).
 *
 * @example
 * ```ts
 * const data = describeOutboundPolicy(policy); // send it to a sandbox process, then there:
 * const same = createOutboundPolicy({ ...data, ownEndpoint: () => data.ownEndpoint });
 * ```
 */
export function describeOutboundPolicy(policy: OutboundPolicy): OutboundPolicyData | undefined {
  const options = described.get(policy);
  if (!options) return undefined;
  return {
    allowPrivateUrls: options.allowPrivateUrls === true,
    allowCidrs: [...(options.allowCidrs ?? [])],
    denyCidrs: [...(options.denyCidrs ?? [])],
    ownEndpoint: options.ownEndpoint?.(),
  };
}
