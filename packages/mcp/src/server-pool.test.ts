import { describe, expect, it } from 'vitest';
import { createMcpHttpHandler } from './http';
import type { McpBackend } from './mcp-backend';

/** A backend of an empty catalog: what building a server reads (services, types) and nothing else. */
function emptyBackend(): McpBackend {
  const none = async (): Promise<never> => {
    throw new Error('not used here');
  };
  return {
    tools: { list: none, get: none, docs: none },
    environment: { docs: async () => '', types: async () => '' },
    processes: {
      create: none,
      check: none,
      get: none,
      output: none,
      stdout: none,
      stderr: none,
      calls: none,
      kill: none,
      settle: none,
      list: none,
      events: () => ({
        [Symbol.asyncIterator]: () => {
          throw new Error('not used here');
        },
      }),
    },
    services: async () => [],
  };
}

/** A handler counting the backends (one per server instance built) per caller. */
function countingHandler(options: { reuse: boolean; maxIdleServers?: number }) {
  const built = new Map<string, number>();
  const handler = createMcpHttpHandler<string>({
    backend: (caller) => {
      built.set(caller, (built.get(caller) ?? 0) + 1);
      return emptyBackend();
    },
    server: { version: '0.0.0' },
    ...(options.reuse ? { reuseKey: (caller: string) => caller } : {}),
    ...(options.maxIdleServers === undefined ? {} : { maxIdleServers: options.maxIdleServers }),
  });
  const listTools = async (caller: string, id: number) => {
    const body = { jsonrpc: '2.0', id, method: 'tools/list', params: {} };
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    const response = await handler.fetch(request, caller, body);
    // A JSON body, or an event stream whose one message is the answer.
    const text = await response.text();
    const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
    const answer = JSON.parse(json) as { id: number; result?: { tools: { name: string }[] } };
    return {
      status: response.status,
      id: answer.id,
      tools: answer.result?.tools.map((tool) => tool.name).sort(),
    };
  };
  return { built, listTools, close: () => handler.close() };
}

const TOOLS = [
  'check_typescript',
  'execute_typescript',
  'get_process',
  'get_tool_types',
  'search_tools',
  'wait_process',
];

describe('reusing MCP server instances between requests', () => {
  it('builds one instance for a caller’s requests one after another, and one per caller', async () => {
    const { built, listTools, close } = countingHandler({ reuse: true });
    try {
      for (let i = 0; i < 20; i++)
        expect(await listTools('a', i)).toEqual({ status: 200, id: i, tools: TOOLS });
      expect(built.get('a')).toBe(1);
      expect(await listTools('b', 1)).toMatchObject({ status: 200, tools: TOOLS });
      expect(built.get('b')).toBe(1);
    } finally {
      await close();
    }
  });

  it('answers 200 concurrent requests each with its own answer, and builds no more instances than run at once', async () => {
    const { built, listTools, close } = countingHandler({ reuse: true, maxIdleServers: 16 });
    try {
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => listTools('a', i)));
      expect(answers).toEqual(answers.map((_, id) => ({ status: 200, id, tools: TOOLS })));
      const first = built.get('a') ?? 0;
      expect(first).toBeLessThanOrEqual(200);
      // The next wave takes what the pool kept (at most 16) before building more.
      const again = await Promise.all(Array.from({ length: 16 }, (_, i) => listTools('a', 1000 + i)));
      expect(again).toEqual(again.map((_, i) => ({ status: 200, id: 1000 + i, tools: TOOLS })));
      expect(built.get('a')).toBe(first);
    } finally {
      await close();
    }
  });

  it('builds an instance per request without reuseKey', async () => {
    const { built, listTools, close } = countingHandler({ reuse: false });
    try {
      for (let i = 0; i < 5; i++) await listTools('a', i);
      expect(built.get('a')).toBe(5);
    } finally {
      await close();
    }
  });
});
