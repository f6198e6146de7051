import { cp } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/index';
import { ASKING_CODE, ASKING_POLICY, askingShopSpec } from './approval-helpers';
import { apiClient, type Json, startUpstream, tempDir, UPSTREAM_KEY, type Upstream } from './helpers';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const KEY = 'stdio-approvals-admin-key';

/** Call a tool with any official client (v2 or 1.x): both answer the same result shape. */
type CallTool = (name: string, args: Record<string, unknown>) => Promise<Json>;

describe('approvals over the stdio bridge (cyrnel-server mcp)', () => {
  let server: RunningServer;
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let installed: Awaited<ReturnType<typeof tempDir>>;
  let agentKey: string;

  /** A fresh data directory holding the shop (an embedded host may not share one with another). */
  const embeddedDir = async () => {
    const fresh = await tempDir('cyrnel-embedded-');
    await cp(installed.path, fresh.path, { recursive: true });
    return fresh;
  };

  const install = async (url: string) => {
    const response = await apiClient(url, KEY)('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(askingShopSpec(upstream.url)),
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    expect(response.status).toBe(201);
  };

  beforeAll(async () => {
    upstream = await startUpstream();
    // The shop installed once in a data directory of its own, copied for each embedded host.
    installed = await tempDir('cyrnel-installed-');
    const once = await startServer({
      dataDir: installed.path,
      port: 0,
      apiKey: KEY,
      defaultPolicy: ASKING_POLICY,
    });
    await install(once.url);
    await once.close();
    dir = await tempDir();
    server = await startServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      urlAllowCidrs: ['127.0.0.1/32'],
      defaultPolicy: ASKING_POLICY,
    });
    await install(server.url);
    agentKey = (await apiClient(server.url, KEY)('POST', '/keys', { name: 'desktop', role: 'agent' })).body
      .key;
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dir?.remove();
    await installed?.remove();
  });

  /** Run the asking program; every client here accepts the form with `approve`. */
  const approvedRun = async (call: CallTool, asked: unknown[]) => {
    const run = await call('execute_typescript', { code: ASKING_CODE });
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0])).toContain('shop.createOrder');
    const view = run.structuredContent as Json;
    expect(view).toMatchObject({
      state: 'idle',
      exitState: 'success',
      toolCalls: [
        { serviceId: 'shop', toolId: 'createOrder', decision: { outcome: 'approved', decidedBy: null } },
      ],
    });
    // Approved, the call went on, to the outbound guard: an embedded host never reaches loopback.
    expect(view.output).toEqual({ step: 'failed', reason: 'upstream_failed' });
    expect(view.toolCalls[0]).toMatchObject({ ok: false, errorReason: 'upstream_failed' });
    return view;
  };

  for (const era of ['legacy', 'modern'] as const) {
    it(`asks a ${era === 'legacy' ? '2025' : '2026-07-28'} client (v2) of the embedded host, which decides as its own user`, async () => {
      const data = await embeddedDir();
      const asked: unknown[] = [];
      const client = new Client(
        { name: 'stdio-approvals', version: '1.0.0' },
        {
          capabilities: { elicitation: { form: {} } },
          ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
        },
      );
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { decision: 'approve' } };
      });
      try {
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [CLI, 'mcp', '--embedded', '--data-dir', data.path],
            env: { PATH: process.env.PATH ?? '' },
            stderr: 'pipe',
          }),
        );
        await approvedRun((name, args) => client.callTool({ name, arguments: args }), asked);
      } finally {
        await client.close();
        await data.remove();
      }
    });
  }

  it('asks a 1.x client of the embedded host (the SDK sends it the form on its connection)', async () => {
    const data = await embeddedDir();
    const asked: unknown[] = [];
    const client = new ClientV1(
      { name: 'stdio-approvals-v1', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { decision: 'approve' } };
    });
    try {
      await client.connect(
        new StdioTransportV1({
          command: process.execPath,
          args: [CLI, 'mcp', '--embedded', '--data-dir', data.path],
          env: { PATH: process.env.PATH ?? '' },
          stderr: 'pipe',
        }),
      );
      await approvedRun((name, args) => client.callTool({ name, arguments: args }), asked);
    } finally {
      await client.close();
      await data.remove();
    }
  });

  it("answers the bridge to a server with the server's link, and waits through the approval", async () => {
    const asked: unknown[] = [];
    const client = new Client(
      { name: 'stdio-bridge', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const person = new Client(
      { name: 'person', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    person.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { decision: 'approve' },
    }));
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, 'mcp'],
          env: { PATH: process.env.PATH ?? '', CYRNEL_URL: server.url, CYRNEL_API_KEY: agentKey },
          stderr: 'pipe',
        }),
      );
      const run = await client.callTool({ name: 'execute_typescript', arguments: { code: ASKING_CODE } });
      const view = run.structuredContent as Json;
      // An agent key: never asked; the run waits, its output stays on the server until it ends.
      expect(asked).toHaveLength(0);
      expect(view).toMatchObject({
        state: 'waiting',
        approvalUrl: `${server.url}/ui/approvals/${view.approvalId}`,
      });
      expect((run.content as Json)[0].text).toContain(`${server.url}/ui/approvals/${view.approvalId}`);
      const waiting = client.callTool({
        name: 'wait_process',
        arguments: { processId: view.processId, timeoutMs: 30_000 },
      });
      // A person with an admin key and a client that shows forms decides, over /mcp.
      await person.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${KEY}` } },
        }),
      );
      await person.callTool({ name: 'wait_process', arguments: { processId: view.processId } });
      expect((await waiting).structuredContent).toMatchObject({
        state: 'idle',
        output: { step: 'after', status: 200 },
        toolCalls: [{ toolId: 'createOrder', decision: { outcome: 'approved', decidedBy: null } }],
      });
    } finally {
      await client.close();
      await person.close();
    }
  });
});
