import { describe, expect, it } from 'vitest';
import { createResources } from '../harness/resources.ts';
import { TRIVIAL } from '../programs.ts';
import { startFloorServer } from './floor-server-process.ts';

describe('startFloorServer', () => {
  it('serves the trivial program from its own process and stops it', async () => {
    const resources = createResources();
    const server = await startFloorServer(resources);
    try {
      const res = await fetch(`${server.url}/processes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: TRIVIAL, wait: true }),
      });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ state: 'idle', exitState: 'success', output: { ok: true } });
    } finally {
      await resources.closeAll();
    }
    await expect(fetch(`${server.url}/processes`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
