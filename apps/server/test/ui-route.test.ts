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
    // The API behind it still needs the key.
    expect((await fetch(`${withUi.url}/services`)).status).toBe(401);
  });

  it('is not served with --no-ui', async () => {
    expect((await fetch(`${withoutUi.url}/ui/`)).status).toBe(401);
    expect(
      (await fetch(`${withoutUi.url}/ui/`, { headers: { authorization: 'Bearer ui-key' } })).status,
    ).toBe(404);
  });
});
