import type { ParsedAddress } from './cidr';

const LOW_32 = 0xffffffffn;

const ipv4 = (bits: bigint): ParsedAddress => ({ family: 4, value: bits & LOW_32 });

/**
 * The IPv4 addresses an IPv6 address stands for, so the guard can check them against the
 * IPv4 blocks too: a transition address that leads to 10.0.0.1 must be refused like 10.0.0.1.
 * Covers IPv4-mapped `::ffff:0:0/96` and SIIT `::ffff:0:0:0/96` (RFC 4291, 6145), the deprecated
 * IPv4-compatible `::/96` (RFC 4291), 6to4 `2002::/16` (RFC 3056) and Teredo `2001::/32`
 * (RFC 4380: the server address, and the client address stored bit-inverted). NAT64 prefixes are
 * refused whole by `BLOCKED_CIDRS` instead.
 */
export function embeddedIPv4(address: ParsedAddress): ParsedAddress[] {
  if (address.family !== 6) return [];
  const value = address.value;
  const high96 = value >> 32n;
  if (high96 === 0xffffn || high96 === 0xffff0000n || high96 === 0n) return [ipv4(value)];
  if (value >> 112n === 0x2002n) return [ipv4(value >> 80n)];
  if (value >> 96n === 0x20010000n) return [ipv4(value >> 64n), ipv4(~value)];
  return [];
}
