import { describe, expect, it } from 'vitest';
import { hostAllowList, hostName } from './host-allow-list';
import { middlewareTestApp } from './middleware-test-app';

const errorOf = async (response: Response) => ((await response.json()) as { error: string }).error;

const get = (app: ReturnType<typeof middlewareTestApp>, host: string) =>
  app.request('http://x/health', { headers: { host } });

describe('hostAllowList', () => {
  const app = middlewareTestApp(
    hostAllowList({ allowedHosts: ['cyrnel.internal', '.corp.example', 'Trailing.Example.'] }),
  );

  it.each([
    '127.0.0.1:9371',
    '10.1.2.3',
    '[::1]:9371',
    '[fe80::1]',
    'localhost:9371',
    'LOCALHOST',
    'app.localhost:80',
    'cyrnel.internal:9371',
    'corp.example',
    'a.b.corp.example',
    'trailing.example',
    'cyrnel.internal.',
  ])('accepts %s', async (host) => {
    expect((await get(app, host)).status).toBe(200);
  });

  it.each([
    'evil.example',
    'evil.example:9371',
    '127.0.0.1.nip.io',
    'localhost.evil.example',
    'notcorp.example',
    'evil.example:abc',
    '[::1',
    'a:b:c',
    ':9371',
  ])('refuses %s with 403 forbidden naming the flag', async (host) => {
    const response = await get(app, host);
    expect(response.status).toBe(403);
    const body = await response.json();
    expect(body).toEqual({
      error: expect.stringContaining('--allowed-hosts'),
      code: 'forbidden',
      reason: 'forbidden',
    });
  });

  it('names the refused host when it is a plain name, never echoing anything else', async () => {
    expect(await errorOf(await get(app, 'evil.example'))).toContain('"evil.example"');
    expect(await errorOf(await get(app, 'a:b"<x>'))).not.toContain('<x>');
  });

  it('accepts every host with *', async () => {
    expect(
      (await get(middlewareTestApp(hostAllowList({ allowedHosts: ['*'] })), 'evil.example')).status,
    ).toBe(200);
  });

  it('passes requests without a Host header (HTTP/1.0, not a browser)', async () => {
    expect((await app.request('/health')).status).toBe(200);
  });
});

describe('hostName', () => {
  it('strips the port and brackets, lower-cases', () => {
    expect(hostName('Example.COM:80')).toBe('example.com');
    expect(hostName('[::1]:1')).toBe('::1');
    expect(hostName('[::1]x')).toBeUndefined();
    expect(hostName('')).toBeUndefined();
  });
});
