import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type apiClient, useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

const KEY = 'mcp-answers-key';
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIXTURES = join(ROOT, 'packages/adapter-mcp/test/fixtures');

/** Start the HTTP fixture server in a process of its own; resolves with its URL. */
function startHttpFixture(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(FIXTURES, 'http-fixture-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the HTTP fixture did not start')), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /listening (\S+)/.exec(chunk.toString());
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[1] as string, child });
    });
  });
}

/**
 * Six processes at once, each calling `service.big` for ~15 MB, while `/health` is probed; the
 * event loop's own delay is printed beside the probes (what the main thread was held, apart from
 * what a loaded machine's scheduler took).
 */
async function sixLargeAnswers(api: ReturnType<typeof apiClient>, url: string, service: string) {
  const warm = await api('POST', '/processes', {
    code: `cyrnel.output({ n: (await cyrnel.services.${service}.tools.big.invoke({ mb: 0.01 })).length });`,
    wait: true,
  });
  expect(warm.body).toMatchObject({ exitState: 'success' });
  const code = `const items = await cyrnel.services.${service}.tools.big.invoke({ mb: 15 }); cyrnel.output({ n: items.length, last: items.at(-1).id });`;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const runs = await expectHealthDuring(`/health while six 15 MB MCP answers arrive (${service})`, url, () =>
    Promise.all(
      Array.from({ length: 6 }, () => api('POST', '/processes', { code, wait: true, timeoutMs: 120_000 })),
    ),
  );
  loop.disable();
  console.log(
    `event loop delay during the answers (${service}): max ${(loop.max / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms`,
  );
  for (const run of runs) {
    expect(run.body, JSON.stringify(run.body).slice(0, 500)).toMatchObject({ exitState: 'success' });
    expect((run.body as { output: { n: number } }).output.n).toBeGreaterThan(200_000);
  }
}

describe('large MCP answers', () => {
  const { api, url } = useServer({ apiKey: KEY, urlAllowCidrs: ['127.0.0.1/32'] });
  let http: ChildProcess | undefined;
  afterAll(() => {
    http?.kill('SIGKILL');
  });

  it('keep /health answering while six ~15 MB answers of a stdio MCP server arrive at once', async () => {
    const allowed = await api('PATCH', '/modules/mcp/config', [
      { op: 'add', path: '/allowedCommands', value: [process.execPath] },
    ]);
    expect(allowed.status).toBe(200);
    const installed = await api('POST', '/services', {
      id: 'stdio',
      adapter: 'mcp',
      definition: JSON.stringify({
        transport: 'stdio',
        command: process.execPath,
        args: [join(FIXTURES, 'fixture-server.mjs')],
      }),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    await sixLargeAnswers(api, url(), 'stdio');
  }, 300_000);

  it('keep /health answering while six ~15 MB answers of a Streamable HTTP MCP server arrive at once', async () => {
    const started = await startHttpFixture();
    http = started.child;
    const installed = await api('POST', '/services', {
      id: 'remote',
      adapter: 'mcp',
      definition: JSON.stringify({ transport: 'http', url: started.url }),
      enabled: true,
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    await sixLargeAnswers(api, url(), 'remote');
  }, 300_000);
});
