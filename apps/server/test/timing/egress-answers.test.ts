import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

/** Strings of 1 MB in the answer: 60 of them make a 60 MB body. */
const PARTS = 60;

/**
 * An upstream in a process of its own answering `/huge` with a 60 MB JSON body (built once), so
 * serving it loads that process, not the test's thread, which also runs the server under test.
 */
async function startHugeUpstream(): Promise<{ url: string; stop(): void }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const http = require('node:http');
       const body = Buffer.from(JSON.stringify({ parts: Array.from({ length: ${PARTS} }, (_, i) => String(i % 10).repeat(1 << 20)) }));
       const server = http.createServer((request, response) => {
         response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
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

function hugeSpec(baseUrl: string): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 'Huge', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    paths: { '/huge': { get: { operationId: 'huge', responses: { '200': { description: 'ok' } } } } },
  };
}

describe('large tool answers are fetched, parsed and bounded off the main thread', () => {
  const { api, url } = useServer({ allowPrivateUrls: true });

  it('keeps /health fast while a program fetches a 60 MB OpenAPI answer, twice, on either path', async () => {
    const upstream = await startHugeUpstream();
    try {
      const installed = await api('POST', '/services', {
        id: 'huge',
        adapter: 'openapi',
        definition: JSON.stringify(hugeSpec(upstream.url)),
        enabled: true,
      });
      expect(installed.status).toBe(201);
      // Room in the isolate for the answer's text and its parsed copy.
      const patched = await api('PATCH', '/modules/typescript-ivm/config', [
        { op: 'add', path: '/memoryLimitMb', value: 512 },
      ]);
      expect(patched.status).toBe(200);
      const program = {
        code: `
          let bytes = 0;
          for (let i = 0; i < 2; i++) {
            const answer = await cyrnel.services.huge.tools.huge.invoke({});
            bytes += answer.body.parts.reduce((sum, part) => sum + part.length, 0);
          }
          cyrnel.output({ bytes });`,
        wait: true,
        timeoutMs: 120_000,
      };
      const direct = await expectHealthDuring(
        '/health during two 60 MB answers, sandbox to gateway',
        url(),
        () => api('POST', '/processes', program),
      );
      expect(direct.body).toMatchObject({ exitState: 'success', output: { bytes: 2 * PARTS * (1 << 20) } });
      // Through the host's gate first: the gate calls the gateway too, which fetches and bounds it.
      const off = await api('PATCH', '/modules/typescript-ivm/config', [
        { op: 'add', path: '/directToolCalls', value: false },
      ]);
      expect(off.status).toBe(200);
      const gated = await expectHealthDuring(
        '/health during two 60 MB answers, through the gate',
        url(),
        () => api('POST', '/processes', program),
      );
      expect(gated.body).toMatchObject({ exitState: 'success', output: { bytes: 2 * PARTS * (1 << 20) } });
    } finally {
      upstream.stop();
    }
  });
});
