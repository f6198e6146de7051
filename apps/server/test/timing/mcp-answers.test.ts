import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

const KEY = 'mcp-answers-key';
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIXTURE = join(ROOT, 'packages/adapter-mcp/test/fixtures/fixture-server.mjs');

describe('large MCP answers', () => {
  const { api, url } = useServer({ apiKey: KEY });

  it('keep /health answering while six ~15 MB answers of a stdio MCP server arrive at once', async () => {
    const allowed = await api('PATCH', '/modules/mcp/config', [
      { op: 'add', path: '/allowedCommands', value: [process.execPath] },
    ]);
    expect(allowed.status).toBe(200);
    const installed = await api('POST', '/services', {
      id: 'fx',
      adapter: 'mcp',
      definition: JSON.stringify({ transport: 'stdio', command: process.execPath, args: [FIXTURE] }),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    // The server is started and connected before the measure (a first call starts it).
    const warm = await api('POST', '/processes', {
      code: 'cyrnel.output({ n: (await cyrnel.services.fx.tools.big.invoke({ mb: 0.01 })).length });',
      wait: true,
    });
    expect(warm.body).toMatchObject({ exitState: 'success' });
    const code =
      'const items = await cyrnel.services.fx.tools.big.invoke({ mb: 15 }); cyrnel.output({ n: items.length, last: items.at(-1).id });';
    const runs = await expectHealthDuring('/health while six 15 MB MCP answers arrive', url(), () =>
      Promise.all(
        Array.from({ length: 6 }, () => api('POST', '/processes', { code, wait: true, timeoutMs: 120_000 })),
      ),
    );
    for (const run of runs) {
      expect(run.body, JSON.stringify(run.body).slice(0, 500)).toMatchObject({ exitState: 'success' });
      expect((run.body as { output: { n: number } }).output.n).toBeGreaterThan(200_000);
    }
  }, 300_000);
});
