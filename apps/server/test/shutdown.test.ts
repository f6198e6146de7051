import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/index';
import { apiClient, startTestServer, startUpstream, tempDir, type Upstream } from './helpers';

describe('graceful shutdown with requests in flight', () => {
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    upstream = await startUpstream();
    dir = await tempDir();
  });

  afterAll(async () => {
    await upstream?.close();
    await dir?.remove();
  });

  it('lets an install by URL that is mid-download finish and store the service before the database closes', async () => {
    const lines: Record<string, unknown>[] = [];
    const logged = new Map<string, () => void>();
    const logger = createLogger({
      level: 'info',
      write: (line) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        lines.push(entry);
        logged.get(entry.msg as string)?.();
      },
    });
    const inFlight = new Promise<void>((resolve) => logged.set('waiting for requests in flight', resolve));
    const server = await startTestServer({ dataDir: dir.path, port: 0, allowPrivateUrls: true, logger });
    const api = apiClient(server.url);
    const install = api('POST', '/services', {
      id: 'held',
      adapter: 'openapi',
      url: `${upstream.url}/held-spec.json`,
    });
    await upstream.arrived('/held-spec.json');
    const closed = server.close();
    // Shutdown has begun and is waiting for the download; only now does the upstream answer.
    await inFlight;
    upstream.release();
    const answered = await install;
    expect(answered).toMatchObject({ status: 201, body: { id: 'held', name: 'Held' } });
    await closed;
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines.find((line) => line.msg === 'request' && line.status === 500)).toBeUndefined();

    const again = await startTestServer({ dataDir: dir.path, port: 0 });
    try {
      expect((await apiClient(again.url)('GET', '/services/held')).body).toMatchObject({
        id: 'held',
        toolCount: 2,
      });
    } finally {
      await again.close();
    }
  });
});
