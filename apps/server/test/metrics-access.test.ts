import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, type RunningServer } from '../src/index';
import { apiClient, startTestServer, tempDir } from './helpers';
import { parsePrometheus, total } from './metrics-helpers';

const ADMIN = 'metrics-access-admin';

describe('who may read /metrics and /logs', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: RunningServer;
  let agentKey: string;
  beforeAll(async () => {
    dir = await tempDir();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: ADMIN,
      metricsListen: { host: '127.0.0.1', port: 0 },
    });
    const created = await apiClient(server.url, ADMIN)('POST', '/keys', { name: 'bot', role: 'agent' });
    expect(created.status).toBe(201);
    agentKey = created.body.key;
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
  });

  it('answers an admin key, refuses an agent key (403 forbidden) and no key (401 unauthorized)', async () => {
    for (const path of ['/metrics', '/logs']) {
      expect((await apiClient(server.url, ADMIN)('GET', path)).status, path).toBe(200);
      const agent = await apiClient(server.url, agentKey)('GET', path);
      expect(agent.status, path).toBe(403);
      expect(agent.body.reason, path).toBe('forbidden');
      const anonymous = await apiClient(server.url)('GET', path);
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.body.reason, path).toBe('unauthorized');
    }
  });

  it('serves the same metrics without a key on --metrics-listen, and nothing else there', async () => {
    const metricsUrl = server.metricsUrl as string;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(metricsUrl).not.toBe(server.url);
    const scraped = await fetch(`${metricsUrl}/metrics`);
    expect(scraped.status).toBe(200);
    const samples = parsePrometheus(await scraped.text());
    expect(total(samples, 'cyrnel_info')).toBe(1);
    expect(total(samples, 'cyrnel_egress_workers')).toBe(2);
    // Only /metrics: not the API, with or without a key.
    const api = await fetch(`${metricsUrl}/processes`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { reason: string }).reason).toBe('route_not_found');
    expect((await fetch(`${metricsUrl}/logs`)).status).toBe(404);
    // A page on a rebound DNS name cannot read it.
    expect(await statusWithHost(`${metricsUrl}/metrics`, 'attacker.example')).toBe(403);
    expect(await statusWithHost(`${metricsUrl}/metrics`, 'localhost')).toBe(200);
  });

  it('refuses a non-loopback --metrics-listen without --metrics-public, before starting anything', async () => {
    const other = await tempDir();
    try {
      const start = startTestServer({
        dataDir: other.path,
        port: 0,
        metricsListen: { host: '0.0.0.0', port: 0 },
      });
      await expect(start).rejects.toThrowError(ConfigError);
      await expect(start).rejects.toThrow(
        /refusing to serve \/metrics without a key on 0\.0\.0\.0.*--metrics-public/,
      );
      const allowed = await startTestServer({
        dataDir: other.path,
        port: 0,
        metricsListen: { host: '0.0.0.0', port: 0 },
        metricsPublic: true,
      });
      try {
        const port = new URL(allowed.metricsUrl as string).port;
        expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
      } finally {
        await allowed.close();
      }
    } finally {
      await other.remove();
    }
  });
});

/** The status of a GET of `url` sent with `Host: host` (fetch does not let a caller set it). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end();
  });
}
