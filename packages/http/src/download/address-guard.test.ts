import { describe, expect, it } from 'vitest';
import { createAddressGuard } from './address-guard';

const refused = (guard: ReturnType<typeof createAddressGuard>, address: string) => {
  try {
    guard.check(address, 'host.test');
    return false;
  } catch (error) {
    expect(error).toMatchObject({ code: 'forbidden', status: 403 });
    return true;
  }
};

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
