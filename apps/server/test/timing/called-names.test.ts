import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

describe('megabyte names called from one hostile process', () => {
  const { api, url } = useServer();

  it('keeps /health fast while a program calls hundreds of services and tools with names of a megabyte', async () => {
    const installed = await api('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'shop', version: '1' },
        servers: [{ url: 'http://127.0.0.1:9' }],
        paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } } },
      }),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    const run = await expectHealthDuring('/health during 600 calls of megabyte names', url(), () =>
      api('POST', '/processes', {
        // Rounds of 60 at once: a megabyte a call is held until it is answered, in this program's
        // own sandbox process (bounded by its heap), and each one crosses to the server.
        code: `
          const big = 'x'.repeat(1_000_000);
          const reasons = new Set();
          for (let round = 0; round < 5; round++) {
            const answers = await Promise.all([
              ...Array.from({ length: 60 }, (_, i) => cyrnel.invoke(big + round + '-' + i, 'ping', {})),
              ...Array.from({ length: 60 }, (_, i) => cyrnel.services.shop.tools[big + round + '-' + i].invoke({})),
            ].map((call) => call.then(() => 'made', (e) => e.reason + ': ' + e.message.length)));
            for (const answer of answers) reasons.add(answer.replace(/\\d+$/, (n) => (Number(n) < 400 ? 'short' : 'long')));
          }
          cyrnel.output({ reasons: [...reasons].sort() });`,
        wait: true,
        timeoutMs: 120_000,
      }),
    );
    expect(run.body).toMatchObject({
      exitState: 'success',
      output: { reasons: ['service_not_found: short', 'tool_not_found: short'] },
    });
    // Each call is kept with the first 128 characters of its name.
    const calls = await api('GET', `/processes/${run.body.id}/calls?limit=5`);
    expect(calls.status).toBe(200);
    for (const call of calls.body.items as { serviceId: string; toolId: string }[]) {
      expect(call.serviceId.length + call.toolId.length).toBeLessThan(300);
    }
  });
});
