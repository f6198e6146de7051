import { anyCidrContains, type Cidr, type ParsedAddress, parseAddress, parseCidr } from './cidr';
import { embeddedIPv4 } from './embedded-ipv4';

/**
 * Ranges a definition download may not reach by default: loopback, private, link-local,
 * unique-local, carrier-grade NAT, cloud metadata, unspecified, multicast, reserved, NAT64.
 * IPv6 transition addresses (IPv4-mapped, IPv4-compatible, 6to4, Teredo) are also refused when
 * the IPv4 address they carry is in one of these blocks (see `embeddedIPv4`).
 */
export const BLOCKED_CIDRS: readonly string[] = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  '::1/128',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
  'fd00:ec2::254/128',
];

/** Options of {@link createAddressGuard}. */
export interface AddressGuardOptions {
  /** Allow every address (local development, tests). Deny rules still apply. */
  allowPrivateUrls?: boolean;
  /** Blocks allowed even though they are private. */
  allowCidrs?: readonly string[];
  /** Blocks always refused; deny wins over every allow. */
  denyCidrs?: readonly string[];
}

/** Decides whether an outbound connection (a download, a tool call) may reach an address. */
export interface AddressGuard {
  /** Whether `address` (an IP literal; anything else is refused) may be reached. */
  allows(address: string): boolean;
}

/**
 * Create the private-address guard of definition downloads and modules' connections; throws on malformed CIDR lists.
 *
 * @example
 * ```ts
 * const guard = createAddressGuard({ allowCidrs: ['10.1.0.0/16'] });
 * guard.allows('10.1.2.3'); // true
 * guard.allows('127.0.0.1'); // false: loopback
 * ```
 */
export function createAddressGuard(options: AddressGuardOptions = {}): AddressGuard {
  const blocked: readonly Cidr[] = BLOCKED_CIDRS.map(parseCidr);
  const allow: readonly Cidr[] = (options.allowCidrs ?? []).map(parseCidr);
  const deny: readonly Cidr[] = (options.denyCidrs ?? []).map(parseCidr);
  const allowAll = options.allowPrivateUrls === true;
  const allowed = (address: ParsedAddress): boolean => {
    const carried = [address, ...embeddedIPv4(address)];
    if (carried.some((candidate) => anyCidrContains(deny, candidate))) return false;
    if (allowAll || anyCidrContains(allow, address)) return true;
    // Every address the packet could end up at must be public or explicitly allowed.
    return carried.every(
      (candidate) => anyCidrContains(allow, candidate) || !anyCidrContains(blocked, candidate),
    );
  };
  const allows = (address: string): boolean => {
    const parsed = parseAddress(address);
    return parsed !== undefined && allowed(parsed);
  };
  return { allows };
}
