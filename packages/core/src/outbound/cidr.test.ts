import { describe, expect, it } from 'vitest';
import { cidrContains, parseAddress, parseCidr } from './cidr';

const contains = (cidr: string, address: string) => {
  const parsed = parseAddress(address);
  if (!parsed) throw new Error(`bad address ${address}`);
  return cidrContains(parseCidr(cidr), parsed);
};

describe('parseAddress', () => {
  it('parses IPv4, IPv6, bracketed and mapped addresses', () => {
    expect(parseAddress('10.1.2.3')).toEqual({ family: 4, value: 0x0a010203n });
    expect(parseAddress('::1')).toEqual({ family: 6, value: 1n });
    expect(parseAddress('[::1]')).toEqual({ family: 6, value: 1n });
    expect(parseAddress('::ffff:127.0.0.1')).toEqual({ family: 6, value: 0xffff7f000001n });
    expect(parseAddress('fe80::1%eth0')?.value).toBe((0xfe80n << 112n) | 1n);
    expect(parseAddress('2001:db8::')).toEqual({ family: 6, value: 0x20010db8n << 96n });
  });

  it('returns undefined for host names and garbage', () => {
    expect(parseAddress('example.com')).toBeUndefined();
    expect(parseAddress('1.2.3')).toBeUndefined();
    expect(parseAddress('')).toBeUndefined();
  });
});

describe('parseCidr', () => {
  it('clears host bits and accepts bare addresses as single hosts', () => {
    expect(parseCidr('10.9.8.7/8')).toMatchObject({ family: 4, prefix: 8 });
    expect(contains('10.9.8.7/8', '10.0.0.0')).toBe(true);
    expect(contains('10.9.8.7/8', '11.0.0.0')).toBe(false);
    expect(parseCidr('fd00:ec2::254')).toMatchObject({ family: 6, prefix: 128 });
    expect(contains('fd00:ec2::254', 'fd00:ec2::254')).toBe(true);
    expect(contains('fd00:ec2::254', 'fd00:ec2::255')).toBe(false);
    expect(contains('fe80::1%eth0', 'fe80::1')).toBe(true);
  });

  it('refuses bad prefixes and non-addresses', () => {
    expect(() => parseCidr('10.0.0.0/33')).toThrow(/prefix must be 0..32/);
    expect(() => parseCidr('::/129')).toThrow(/prefix must be 0..128/);
    expect(() => parseCidr('10.0.0.0/x')).toThrow(/prefix/);
    expect(() => parseCidr('example.com/8')).toThrow(/not an IP address/);
  });
});

describe('cidrContains', () => {
  it('matches IPv4 blocks at their edges', () => {
    expect(contains('172.16.0.0/12', '172.16.0.0')).toBe(true);
    expect(contains('172.16.0.0/12', '172.31.255.255')).toBe(true);
    expect(contains('172.16.0.0/12', '172.32.0.0')).toBe(false);
    expect(contains('172.16.0.0/12', '172.15.255.255')).toBe(false);
    expect(contains('0.0.0.0/0', '8.8.8.8')).toBe(true);
    expect(contains('127.0.0.1/32', '127.0.0.2')).toBe(false);
  });

  it('matches IPv6 blocks', () => {
    expect(contains('fc00::/7', 'fd12:3456::1')).toBe(true);
    expect(contains('fc00::/7', 'fe00::1')).toBe(false);
    expect(contains('fe80::/10', 'febf:ffff::1')).toBe(true);
    expect(contains('::/0', '2606:4700::1111')).toBe(true);
    expect(contains('2001:db8::/32', '2001:db9::')).toBe(false);
  });

  it('matches IPv4-mapped IPv6 addresses against IPv4 blocks, never across families otherwise', () => {
    expect(contains('127.0.0.0/8', '::ffff:127.0.0.1')).toBe(true);
    expect(contains('10.0.0.0/8', '::ffff:a00:1')).toBe(true);
    expect(contains('::1/128', '127.0.0.1')).toBe(false);
    expect(contains('10.0.0.0/8', '::a00:1')).toBe(false);
    expect(contains('::/0', '1.2.3.4')).toBe(false);
    expect(contains('::ffff:0:0/96', '10.0.0.1')).toBe(false);
  });
});
