import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openUnreadStream, rawRequest } from './boundary-helpers';
import { apiClient, startTestServer, tempDir, useServer } from './helpers';

// "The host boundary": each attack that worked before, against a real server on 127.0.0.1. Those
// that run on the main thread, with /health probed throughout, are in timing/host-boundary.test.ts.

const JSON_TYPE = { 'content-type': 'application/json' };

describe('host boundary: a browser cannot drive the server', () => {
  const { api, url } = useServer();
  const host = () => new URL(url()).host;

  it('refuses text/plain, form and multipart bodies with 415 and creates nothing', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      for (const path of ['/processes', '/services']) {
        const response = await rawRequest(
          url(),
          'POST',
          path,
          { host: host(), 'content-type': type },
          '{"code":"1"}',
        );
        expect({ path, type, status: response.status, body: JSON.parse(response.text) }).toEqual({
          path,
          type,
          status: 415,
          body: {
            error: expect.stringContaining('application/json'),
            code: 'unsupported_media_type',
            reason: 'unsupported_media_type',
          },
        });
      }
    }
    expect((await api('GET', '/processes')).body.items).toEqual([]);
  });

  it('refuses a DNS name not listed (DNS rebinding) for reads and writes, naming the host and the flag', async () => {
    const port = new URL(url()).port;
    for (const [method, path] of [
      ['GET', '/processes'],
      ['GET', '/services'],
      ['POST', '/processes'],
    ]) {
      const response = await rawRequest(
        url(),
        method as string,
        path as string,
        {
          host: `rebind.attacker.example:${port}`,
          ...JSON_TYPE,
        },
        method === 'POST' ? '{"code":"1"}' : undefined,
      );
      expect(response.status).toBe(403);
      expect(JSON.parse(response.text)).toEqual({
        error: expect.stringMatching(/"rebind\.attacker\.example".*--allowed-hosts/),
        code: 'forbidden',
        reason: 'forbidden',
      });
    }
    for (const name of [`127.0.0.1:${port}`, `localhost:${port}`, `cyrnel.localhost:${port}`]) {
      expect((await rawRequest(url(), 'GET', '/processes', { host: name })).status).toBe(200);
    }
  });

  it('refuses cross-site and foreign-origin state changes even as JSON', async () => {
    const cases: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://attacker.example' },
      { origin: 'null' },
    ];
    for (const headers of cases) {
      const response = await rawRequest(
        url(),
        'POST',
        '/processes',
        { host: host(), ...JSON_TYPE, ...headers },
        '{"code":"cyrnel.output({})"}',
      );
      expect({ headers, status: response.status }).toEqual({ headers, status: 403 });
      expect(JSON.parse(response.text).error).toContain('--allowed-origins');
    }
    const sameOrigin = await rawRequest(
      url(),
      'POST',
      '/processes',
      { host: host(), origin: url(), 'sec-fetch-site': 'same-origin', ...JSON_TYPE },
      '{"code":"1","autorun":false}',
    );
    expect(sameOrigin.status).toBe(201);
  });
});

describe('host boundary: --allowed-hosts and --allowed-origins', () => {
  const { url } = useServer({ allowedHosts: ['cyrnel.test'], allowedOrigins: ['https://ui.example.com'] });

  it('accepts a listed host and a listed origin', async () => {
    const port = new URL(url()).port;
    const headers = {
      host: `cyrnel.test:${port}`,
      origin: 'https://ui.example.com',
      'sec-fetch-site': 'cross-site',
      ...JSON_TYPE,
    };
    expect(
      (await rawRequest(url(), 'POST', '/processes', headers, '{"code":"1","autorun":false}')).status,
    ).toBe(201);
  });
});

describe('host boundary: limits on what API clients send', () => {
  const { api } = useServer({ maxLiveProcesses: 1 });

  it('caps envConfig (413 naming the field and limit) and lists processes without it', async () => {
    const big = await api('POST', '/processes', {
      code: '1',
      autorun: false,
      envConfig: { k: 'x'.repeat(65_536) },
    });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({
      code: 'payload_too_large',
      error: 'envConfig exceeds 65536 bytes of JSON',
    });
    const fits = { k: 'x'.repeat(60_000) };
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await api('POST', '/processes', { code: '1', autorun: false, envConfig: fits })).body.id);
    }
    const listed = await api('GET', '/processes?limit=100');
    expect(listed.status).toBe(200);
    expect(listed.text.length).toBeLessThan(10_000);
    for (const item of listed.body.items) expect(item).not.toHaveProperty('envConfig');
    expect((await api('GET', `/processes/${ids[0]}`)).body.envConfig).toEqual(fits);
  });

  it('answers too many live processes with 429 and Retry-After', async () => {
    const slow = await api('POST', '/processes', { code: 'await new Promise((r) => setTimeout(r, 20000));' });
    expect(slow.status).toBe(201);
    const refused = await api('POST', '/processes', { code: '1' });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('too_many_processes');
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    await api('POST', `/processes/${slow.body.id}/signals/kill`);
  });
});

describe('host boundary: event streams', () => {
  const { api, url } = useServer({
    maxEventStreams: 3,
    maxEventBufferBytes: 1024 * 1024,
    maxEventQueueBytes: 64 * 1024 * 1024,
  });

  it('caps concurrent event streams with 429 too_many_streams and Retry-After, freeing slots as they close', async () => {
    const idle = await api('POST', '/processes', { code: '1', autorun: false });
    const path = `/processes/${idle.body.id}/events`;
    const open = [];
    for (let i = 0; i < 3; i++) open.push(await openUnreadStream(url(), path));
    expect(open.map((stream) => stream.head)).toEqual(Array(3).fill('HTTP/1.1 200 OK'));
    const refused = await rawRequest(url(), 'GET', path, { host: new URL(url()).host });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'too_many_streams' });
    open[0]?.socket.destroy();
    await expect
      .poll(async () => {
        const again = await openUnreadStream(url(), path);
        again.socket.destroy();
        return again.head;
      })
      .toBe('HTTP/1.1 200 OK');
    for (const stream of open) stream.socket.destroy();
  });
});

describe('host boundary: file modes', () => {
  it('keeps the data directory 0700 and the database, its WAL and shared memory 0600', async () => {
    const dir = await tempDir();
    const dataDir = join(dir.path, 'data');
    const server = await startTestServer({ dataDir, port: 0 });
    try {
      const api = apiClient(server.url);
      expect((await api('POST', '/processes', { code: 'cyrnel.output({ a: 1 })', wait: true })).status).toBe(
        201,
      );
      const modes: Record<string, string> = {};
      for (const name of ['', 'data.db', 'data.db-wal', 'data.db-shm', 'secrets.key']) {
        modes[name || '.'] = ((await stat(join(dataDir, name))).mode & 0o777).toString(8);
      }
      expect(modes).toEqual({
        '.': '700',
        'data.db': '600',
        'data.db-wal': '600',
        'data.db-shm': '600',
        'secrets.key': '600',
      });
    } finally {
      await server.close();
      await dir.remove();
    }
  });
});
