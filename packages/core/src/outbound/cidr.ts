import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** An IP address as a family and a 32- or 128-bit integer. */
export interface ParsedAddress {
  /** 4 or 6. */
  readonly family: 4 | 6;
  /** The address bits. */
  readonly value: bigint;
}

/** A parsed CIDR block such as `10.0.0.0/8` or `fc00::/7`. */
export interface Cidr {
  /** The block as written. */
  readonly text: string;
  /** 4 or 6. */
  readonly family: 4 | 6;
  /** Prefix length. */
  readonly prefix: number;
  /** The block as Node's matcher; it alone is not the policy (see {@link cidrContains}). */
  readonly list: BlockList;
}

function parseIPv4(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseIPv6(text: string): bigint {
  let source = text;
  const zone = source.indexOf('%');
  if (zone >= 0) source = source.slice(0, zone);
  // A trailing dotted quad (::ffff:1.2.3.4) stands for the last two groups.
  const lastColon = source.lastIndexOf(':');
  const tail = source.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    source = `${source.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = source.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups =
    rest === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

/** Parse an IPv4 or IPv6 address, or return undefined when `text` is not one. */
export function parseAddress(text: string): ParsedAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIPv4(bare)) return { family: 4, value: parseIPv4(bare) };
  if (isIPv6(bare)) return { family: 6, value: parseIPv6(bare) };
  return undefined;
}

/** The IPv4 address embedded in an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), if it is one. */
export function unmapIPv4(address: ParsedAddress): ParsedAddress {
  if (address.family === 6 && address.value >> 32n === 0xffffn) {
    return { family: 4, value: address.value & 0xffffffffn };
  }
  return address;
}

/** The canonical text of a parsed address (dotted quad, or eight hex groups). */
function formatAddress(address: ParsedAddress): string {
  const count = address.family === 4 ? 4 : 8;
  const width = address.family === 4 ? 8n : 16n;
  const parts: string[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const part = (address.value >> (BigInt(i) * width)) & ((1n << width) - 1n);
    parts.push(address.family === 4 ? part.toString(10) : part.toString(16));
  }
  return parts.join(address.family === 4 ? '.' : ':');
}

const familyName = (family: 4 | 6) => (family === 4 ? 'ipv4' : 'ipv6');

/** Parse `a.b.c.d/n` or `x::y/n` (a bare address means a single host); throws on bad input. */
export function parseCidr(text: string): Cidr {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash < 0 ? trimmed : trimmed.slice(0, slash);
  const address = parseAddress(addressText);
  if (!address) throw new Error(`invalid CIDR "${text}": not an IP address`);
  const bits = address.family === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(bits) : trimmed.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
    throw new Error(`invalid CIDR "${text}": prefix must be 0..${bits}`);
  }
  const prefix = Number(prefixText);
  const list = new BlockList();
  list.addSubnet(formatAddress(address), prefix, familyName(address.family));
  return { text: trimmed, family: address.family, prefix, list };
}

/**
 * True when `address` lies inside `cidr`. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) matches
 * IPv4 blocks; otherwise families never cross (Node's `BlockList` alone would also match IPv4
 * addresses against IPv6 blocks such as `::/0`, and mapped ones against IPv6 blocks).
 */
export function cidrContains(cidr: Cidr, address: ParsedAddress): boolean {
  const candidate = cidr.family === 4 ? unmapIPv4(address) : address;
  if (candidate.family !== cidr.family) return false;
  return cidr.list.check(formatAddress(candidate), familyName(candidate.family));
}

/** True when any of `cidrs` contains `address`. */
export function anyCidrContains(cidrs: readonly Cidr[], address: ParsedAddress): boolean {
  return cidrs.some((cidr) => cidrContains(cidr, address));
}
