import { describe, expect, it } from 'vitest';
import { createAddressGuard } from './address-guard';

const refused = (guard: ReturnType<typeof createAddressGuard>, address: string) => !guard.allows(address);

describe('createAddressGuard', () => {
  it('refuses loopback, private, link-local, unique-local, metadata, unspecified and multicast', () => {
    const guard = createAddressGuard();
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.20.1.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
    ]) {
      expect(refused(guard, address), address).toBe(true);
    }
  });

  it('lets public addresses through', () => {
    const guard = createAddressGuard();
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(refused(guard, address), address).toBe(false);
    }
  });

  it('refuses IPv6 transition addresses that carry a refused IPv4 address, lets public ones through', () => {
    const guard = createAddressGuard();
    for (const [address, blocked] of [
      ['2002:a00:1::', true], // 6to4 of 10.0.0.1
      ['2002:7f00:1::1', true], // 6to4 of 127.0.0.1
      ['2002:a9fe:a9fe::', true], // 6to4 of the metadata address
      ['2002:808:808::1', false], // 6to4 of 8.8.8.8
      ['2001:0:7f00:1:8000:63bf:f7f7:fbfb', true], // Teredo, server 127.0.0.1
      ['2001:0:4136:e378:8000:63bf:3f57:fefe', true], // Teredo, client 192.168.1.1 (inverted)
      ['2001:0:4136:e378:8000:63bf:f7f7:fbfb', false], // Teredo, server 65.54.227.120, client 8.8.4.4
      ['::10.0.0.1', true], // IPv4-compatible
      ['::a9fe:a9fe', true], // IPv4-compatible metadata address, hex form
      ['::ffff:0:10.0.0.1', true], // SIIT IPv4-translated
      ['::ffff:a00:1', true], // IPv4-mapped, hex form
      ['64:ff9b:1::a00:1', true], // local-use NAT64
      ['::8.8.8.8', false],
    ] as const) {
      expect(refused(guard, address), address).toBe(blocked);
    }
  });

  it('applies deny lists to the carried IPv4 address and keeps explicit allows of the literal', () => {
    const deny = createAddressGuard({ allowPrivateUrls: true, denyCidrs: ['10.0.0.0/8'] });
    expect(refused(deny, '2002:a00:1::')).toBe(true);
    expect(refused(deny, '::ffff:10.1.2.3')).toBe(true);
    expect(refused(createAddressGuard({ allowCidrs: ['::1/128'] }), '::1')).toBe(false);
    expect(refused(createAddressGuard({ allowCidrs: ['10.0.0.0/8'] }), '2002:a00:1::')).toBe(false);
  });

  it('allows private blocks listed in allowCidrs, or everything with allowPrivateUrls', () => {
    const allowLoopback = createAddressGuard({ allowCidrs: ['127.0.0.0/8'] });
    expect(refused(allowLoopback, '127.0.0.1')).toBe(false);
    expect(refused(allowLoopback, '10.0.0.1')).toBe(true);
    const allowAll = createAddressGuard({ allowPrivateUrls: true });
    expect(refused(allowAll, '10.0.0.1')).toBe(false);
    expect(refused(allowAll, '::1')).toBe(false);
  });

  it('lets deny rules win over every allow', () => {
    const guard = createAddressGuard({
      allowPrivateUrls: true,
      allowCidrs: ['127.0.0.1/32'],
      denyCidrs: ['127.0.0.0/8', '8.8.8.0/24'],
    });
    expect(refused(guard, '127.0.0.1')).toBe(true);
    expect(refused(guard, '8.8.8.8')).toBe(true);
    expect(refused(guard, '10.1.1.1')).toBe(false);
  });

  it('refuses malformed CIDR lists at creation', () => {
    expect(() => createAddressGuard({ allowCidrs: ['10.0.0.0/40'] })).toThrow(/invalid CIDR/);
  });
});
