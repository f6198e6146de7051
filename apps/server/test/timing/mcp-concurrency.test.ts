import { describe, expect, it } from 'vitest';
import { apiClient, useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

const ADMIN = 'mcp-concurrency-admin';
const TOOLS = [
  'check_typescript',
  'execute_typescript',
  'get_process',
  'get_tool_types',
  'search_tools',
  'wait_process',
];

describe('200 concurrent /mcp requests of one agent key', () => {
  // The request rate is another test's subject: off here, so every request reaches the MCP layer.
  const { url } = useServer({ apiKey: ADMIN, rateLimit: 0 });

  it('all answer correctly, and /health keeps answering meanwhile', async () => {
    const created = await apiClient(url(), ADMIN)('POST', '/keys', { name: 'agent', role: 'agent' });
    expect(created.status).toBe(201);
    const headers = {
      authorization: `Bearer ${created.body.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const post = async (id: number) => {
      const body =
        id % 2 === 0
          ? { jsonrpc: '2.0', id, method: 'tools/list', params: {} }
          : {
              jsonrpc: '2.0',
              id,
              method: 'tools/call',
              params: { name: 'search_tools', arguments: { query: 'x' } },
            };
      const response = await fetch(`${url()}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await response.text();
      const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
      return { status: response.status, answer: JSON.parse(json) };
    };
    const answers = await expectHealthDuring('/health during 200 concurrent /mcp requests', url(), () =>
      Promise.all(Array.from({ length: 200 }, (_, id) => post(id))),
    );
    answers.forEach(({ status, answer }, id) => {
      expect(status).toBe(200);
      expect(answer.id).toBe(id);
      if (id % 2 === 0)
        expect(answer.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(TOOLS);
      else expect(answer.result.isError).toBeFalsy();
    });
  });
});
