import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shopSpec, UPSTREAM_KEY, useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

/**
 * The shop upstream in a process of its own: a flood of requests must load the sandbox process
 * and the upstream, not the test's thread, which also runs the server under test.
 */
async function startShopProcess(): Promise<{ url: string; stop(): void }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const http = require('node:http');
       const server = http.createServer((request, response) => {
         const id = /^\\/users\\/(\\d+)$/.exec(request.url.split('?')[0]);
         if (request.headers['x-api-key'] !== ${JSON.stringify(UPSTREAM_KEY)} || !id) {
           response.writeHead(404).end('{}');
           return;
         }
         response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: Number(id[1]) }));
       });
       server.listen(0, '127.0.0.1', () => console.log(server.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) =>
    child.stdout?.once('data', (chunk) => resolve(String(chunk).trim())),
  );
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

describe('direct tool calls under load from one hostile process', () => {
  const { api, url } = useServer({ allowPrivateUrls: true });

  it('keeps /health fast through 5,000 direct calls at once, 2,000 sequential ones (journaled by the worker), 2,000 tools that do not exist and a 1 MB parameter', async () => {
    const shop = await startShopProcess();
    try {
      const installed = await api('POST', '/services', {
        id: 'flood',
        adapter: 'openapi',
        definition: JSON.stringify(shopSpec(shop.url)),
        secrets: { shopKey: UPSTREAM_KEY },
        enabled: true,
      });
      expect(installed.status).toBe(201);
      const run = await expectHealthDuring('/health during 9,000 direct calls from one process', url(), () =>
        api('POST', '/processes', {
          code: `
          const tools = cyrnel.services.flood.tools;
          const statuses = await Promise.all(
            Array.from({ length: 5000 }, (_, i) => tools.getUser.invoke({ path: { id: i + 1 } }).then((r) => r.status)),
          );
          // One after another: after the first, each is made under the decision the worker keeps
          // (journaled, reported in batches), never waiting for the main thread.
          let sequential = 0;
          for (let i = 0; i < 2000; i++)
            if ((await tools.getUser.invoke({ path: { id: i + 1 } })).status === 200) sequential++;
          const missing = await Promise.all(
            Array.from({ length: 2000 }, (_, i) => tools['nope' + i].invoke({}).then(() => 'made', (e) => e.reason)),
          );
          let big;
          try {
            await tools.getUser.invoke({ path: { id: 1 }, filler: 'x'.repeat(1_000_000) });
            big = 'made';
          } catch (e) {
            big = e.reason;
          }
          cyrnel.output({ ok: statuses.filter((s) => s === 200).length, sequential, missing: [...new Set(missing)], big });`,
          wait: true,
          timeoutMs: 120_000,
        }),
      );
      expect(run.body).toMatchObject({
        exitState: 'success',
        output: { ok: 5000, sequential: 2000, missing: ['tool_not_found'], big: 'invalid_parameters' },
      });
      // The gateway does not wait for a call's end to be read, nor for a kept call's start: every
      // start and end still reached the run's records before it settled, so all 7,000 calls are
      // recorded as answered.
      const calls = await api('GET', `/processes/${run.body.id}/calls`);
      expect(calls.status).toBe(200);
      const answered = (calls.body.items as { toolId: string; ok: boolean | null }[]).filter(
        (call) => call.toolId === 'getUser' && call.ok === true,
      );
      expect(answered).toHaveLength(7000);
    } finally {
      shop.stop();
    }
  });
});
