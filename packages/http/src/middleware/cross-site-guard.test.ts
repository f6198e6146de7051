import { describe, expect, it } from 'vitest';
import { crossSiteGuard } from './cross-site-guard';
import { middlewareTestApp } from './middleware-test-app';

describe('crossSiteGuard', () => {
  const app = middlewareTestApp(crossSiteGuard({ allowedOrigins: ['https://ui.example.com'] }));
  const send = (method: string, headers: Record<string, string>) =>
    app.request('http://x/processes', { method, headers: { host: '127.0.0.1:9371', ...headers } });

  it('passes requests without browser headers (curl, SDKs) and same-origin ones', async () => {
    expect((await send('POST', {})).status).toBe(200);
    expect((await send('POST', { 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await send('POST', { 'sec-fetch-site': 'none' })).status).toBe(200);
    expect(
      (await send('DELETE', { origin: 'http://127.0.0.1:9371', 'sec-fetch-site': 'same-origin' })).status,
    ).toBe(200);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    'refuses a cross-site or same-site %s with 403',
    async (method) => {
      const cases: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:9371' },
        { origin: 'http://evil.example' },
        { origin: 'http://127.0.0.1:9372' },
        { origin: 'null' },
        { origin: 'file://' },
      ];
      for (const headers of cases) {
        const response = await send(method, headers);
        expect(response.status, JSON.stringify(headers)).toBe(403);
        expect(await response.json()).toEqual({
          error: expect.stringContaining('--allowed-origins'),
          code: 'forbidden',
          reason: 'forbidden',
        });
      }
    },
  );

  it('compares the origin with default ports implied', async () => {
    const app80 = (host: string, origin: string) =>
      app.request('http://x/p', { method: 'POST', headers: { host, origin } });
    expect((await app80('example.com', 'http://example.com')).status).toBe(200);
    expect((await app80('example.com:80', 'http://EXAMPLE.com')).status).toBe(200);
    expect((await app80('example.com', 'https://example.com:443')).status).toBe(200);
    expect((await app80('example.com:8080', 'http://example.com')).status).toBe(403);
    // Only host and port can be compared: the scheme never reaches the server in `Host`.
    expect((await app80('example.com:8443', 'https://example.com:8443')).status).toBe(200);
  });

  it('lets listed origins through, even cross-site', async () => {
    const headers = { origin: 'https://ui.example.com', 'sec-fetch-site': 'cross-site' };
    expect((await send('POST', headers)).status).toBe(200);
    const any = middlewareTestApp(crossSiteGuard({ allowedOrigins: ['*'] }));
    expect((await any.request('/p', { method: 'POST', headers })).status).toBe(200);
  });

  it('leaves reads alone', async () => {
    expect(
      (await send('GET', { 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' })).status,
    ).toBe(200);
  });
});
