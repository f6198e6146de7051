import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/index';
import {
  apiClient,
  manyToolsSpec,
  shopSpec,
  startTestServer,
  startUpstream,
  tempDir,
  UPSTREAM_KEY,
  type Upstream,
} from '../helpers';
import { expectHealthDuring } from './health-probe';

const ADMIN = 'mcp-tools-concurrency-admin';

describe('200 concurrent /mcp/tools requests of one agent key', () => {
  let server: RunningServer;
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    dir = await tempDir();
    upstream = await startUpstream();
    // The request rate is another test's subject: off here, so every request reaches the MCP layer.
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: ADMIN,
      rateLimit: 0,
      urlAllowCidrs: ['127.0.0.1/32'],
    });
    const api = apiClient(server.url, ADMIN);
    for (const [id, spec, secrets] of [
      ['shop', shopSpec(upstream.url), { shopKey: UPSTREAM_KEY }],
      ['things', manyToolsSpec(150), {}],
    ] as const) {
      const installed = await api('POST', '/services', {
        id,
        adapter: 'openapi',
        definition: JSON.stringify(spec),
        secrets,
        enabled: true,
      });
      expect(installed.status, installed.text).toBe(201);
    }
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dir?.remove();
  });

  it('lists (two pages of 152 tools) and calls, all answered, and /health keeps answering meanwhile', async () => {
    const created = await apiClient(server.url, ADMIN)('POST', '/keys', { name: 'agent', role: 'agent' });
    expect(created.status).toBe(201);
    const headers = {
      authorization: `Bearer ${created.body.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    };
    const post = async (id: number) => {
      const body =
        id % 2 === 0
          ? { jsonrpc: '2.0', id, method: 'tools/list', params: {} }
          : {
              jsonrpc: '2.0',
              id,
              method: 'tools/call',
              params: { name: 'shop__getUser', arguments: { path: { id } } },
            };
      const response = await fetch(`${server.url}/mcp/tools`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      const text = await response.text();
      const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
      return { status: response.status, answer: JSON.parse(json) };
    };
    // What the first request loads (the MCP layer, the gateway's workers, the validators) is
    // loaded once per server, not per request: loaded before the baseline, the attack measures
    // what 200 requests at once cost.
    expect((await post(0)).status).toBe(200);
    expect((await post(1)).status).toBe(200);
    const answers = await expectHealthDuring(
      '/health during 200 concurrent /mcp/tools requests',
      server.url,
      () => Promise.all(Array.from({ length: 200 }, (_, id) => post(id))),
    );
    answers.forEach(({ status, answer }, id) => {
      expect(status).toBe(200);
      expect(answer.id).toBe(id);
      if (id % 2 === 0) {
        expect(answer.result.tools).toHaveLength(100);
        expect(answer.result.nextCursor).toBeTruthy();
      } else {
        expect(answer.result.isError, JSON.stringify(answer.result)).toBeFalsy();
        expect(answer.result.structuredContent).toMatchObject({ status: 200, body: { id } });
      }
    });
  });
});
