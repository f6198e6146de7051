import { describe, expect, it } from 'vitest';
import { createMetricsApp } from './metrics-app';

const metrics = { contentType: 'text/plain; version=0.0.4; charset=utf-8', text: async () => 'up 1\n' };

describe('createMetricsApp', () => {
  it('serves GET /metrics without a key, and nothing else', async () => {
    const app = createMetricsApp(metrics);
    const scraped = await app.request('http://127.0.0.1:9464/metrics');
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toBe(metrics.contentType);
    expect(await scraped.text()).toBe('up 1\n');
    const other = await app.request('http://127.0.0.1:9464/processes');
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ reason: 'route_not_found' });
  });

  it('refuses a Host that is a DNS name it was not given (DNS rebinding)', async () => {
    const app = createMetricsApp(metrics, { allowedHosts: ['metrics.internal'] });
    const rebound = await app.request('/metrics', { headers: { host: 'attacker.example:9464' } });
    expect(rebound.status).toBe(403);
    expect(await rebound.json()).toMatchObject({ reason: 'forbidden' });
    const listed = await app.request('/metrics', { headers: { host: 'metrics.internal:9464' } });
    expect(listed.status).toBe(200);
  });
});
