import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createOutboundPolicy } from './outbound-policy';

const refusal = (check: () => void): string | undefined => {
  try {
    check();
    return undefined;
  } catch (error) {
    expect(error).toMatchObject({ code: 'forbidden', status: 403 });
    return (error as Error).message;
  }
};

describe('createOutboundPolicy', () => {
  it('does refuse private addresses by default with a message naming address and port', () => {
    const policy = createOutboundPolicy();
    expect(refusal(() => policy.check('127.0.0.1', 9371, '127.0.0.1'))).toBe(
      'refusing to connect to 127.0.0.1:9371 (private, loopback, link-local, metadata or denied address)',
    );
    expect(refusal(() => policy.check('::1', 80, 'localhost'))).toMatch(
      /^refusing to connect to \[::1\]:80 \(localhost\) \(private/,
    );
    expect(refusal(() => policy.check('169.254.169.254', 80, 'metadata.test'))).toBeDefined();
    expect(refusal(() => policy.check('93.184.216.34', 443, 'example.com'))).toBeUndefined();
  });

  it('does apply the operator switches like the download guard', () => {
    expect(refusal(() => createOutboundPolicy({ allowPrivateUrls: true }).check('10.0.0.1', 80, 'h'))).toBe(
      undefined,
    );
    const allowLoopback = createOutboundPolicy({ allowCidrs: ['127.0.0.0/8'] });
    expect(refusal(() => allowLoopback.check('127.0.0.2', 80, 'h'))).toBeUndefined();
    const deny = createOutboundPolicy({ allowPrivateUrls: true, denyCidrs: ['8.8.8.0/24'] });
    expect(refusal(() => deny.check('8.8.8.8', 53, 'dns.google'))).toBeDefined();
  });

  it("does refuse cyrnel's own port on every local address, whatever the allow-list says", () => {
    const policy = createOutboundPolicy({
      allowPrivateUrls: true,
      allowCidrs: ['0.0.0.0/0', '::/0'],
      ownEndpoint: () => ({ address: '0.0.0.0', port: 9371 }),
    });
    const interfaces = Object.values(networkInterfaces()).flatMap((list) =>
      (list ?? []).map((i) => i.address),
    );
    for (const address of [
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
      '::',
      ...interfaces,
    ]) {
      expect(
        refusal(() => policy.check(address, 9371, 'h')),
        address,
      ).toMatch(/that is cyrnel's own API$/);
      expect(
        refusal(() => policy.check(address, 9372, 'h')),
        address,
      ).toBeUndefined();
    }
    expect(refusal(() => policy.check('93.184.216.34', 9371, 'example.com'))).toBeUndefined();
  });

  it('does refuse the exact bound address and port, read at every check', () => {
    let own: { address: string; port: number } | undefined;
    const policy = createOutboundPolicy({ allowPrivateUrls: true, ownEndpoint: () => own });
    expect(refusal(() => policy.check('203.0.113.7', 8080, 'h'))).toBeUndefined();
    own = { address: '203.0.113.7', port: 8080 };
    expect(refusal(() => policy.check('203.0.113.7', 8080, 'h'))).toMatch(/own API/);
    expect(refusal(() => policy.check('203.0.113.8', 8080, 'h'))).toBeUndefined();
  });
});
