import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { startTestServer, tempDir } from './helpers';

describe('the admin UI route /ui', () => {
  let withUi: RunningServer;
  let withoutUi: RunningServer;
  const dirs: Awaited<ReturnType<typeof tempDir>>[] = [];

  beforeAll(async () => {
    dirs.push(await tempDir(), await tempDir());
    withUi = await startTestServer({ dataDir: dirs[0]?.path as string, port: 0, apiKey: 'ui-key' });
    withoutUi = await startTestServer({
      dataDir: dirs[1]?.path as string,
      port: 0,
      apiKey: 'ui-key',
      noUi: true,
    });
  });
  afterAll(async () => {
    await withUi?.close();
    await withoutUi?.close();
    for (const dir of dirs) await dir.remove();
  });

  it('serves the page and its files without a key, with the CSP and ETags', async () => {
    const redirect = await fetch(`${withUi.url}/ui`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/ui/');
    const page = await fetch(`${withUi.url}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'; script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const etag = page.headers.get('etag') as string;
    expect((await fetch(`${withUi.url}/ui/`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const script = await fetch(`${withUi.url}/ui/app.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${withUi.url}/ui/ts-worker.js`)).status).toBe(200);
    expect((await fetch(`${withUi.url}/ui/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${withUi.url}/ui/missing.js`)).status).toBe(404);
    // A page's path, as MCP answers link an approval: sent to the page's hash route.
    const approval = await fetch(`${withUi.url}/ui/approvals/apr%2F1`, { redirect: 'manual' });
    expect(approval.status).toBe(302);
    expect(approval.headers.get('location')).toBe('/ui/#/approvals/apr%2F1');
    // The API behind it still needs the key.
    expect((await fetch(`${withUi.url}/services`)).status).toBe(401);
  });

  it('serves its icon without a key, also at /favicon.ico, with the same headers', async () => {
    const icon = await fetch(`${withUi.url}/ui/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('content-security-policy')).toContain("default-src 'none'");
    const body = await icon.text();
    expect(body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const root = await fetch(`${withUi.url}/favicon.ico`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toBe('image/svg+xml');
    expect(root.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await root.text()).toBe(body);
    const etag = root.headers.get('etag') as string;
    expect((await fetch(`${withUi.url}/favicon.ico`, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    // The page names it.
    expect(await (await fetch(`${withUi.url}/ui/`)).text()).toContain('<link rel="icon" href="favicon.svg"');
  });

  it('is not served with --no-ui', async () => {
    expect((await fetch(`${withoutUi.url}/favicon.ico`)).status).toBe(401);
    expect((await fetch(`${withoutUi.url}/ui/`)).status).toBe(401);
    expect(
      (await fetch(`${withoutUi.url}/ui/`, { headers: { authorization: 'Bearer ui-key' } })).status,
    ).toBe(404);
  });
});
