import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ASKING_CODE } from './approval-helpers';
import { bridgeTransport, bridgeTransportV1, useAskingHosts } from './bridge-helpers';
import type { Json } from './helpers';

const KEY = 'stdio-approvals-admin-key';

/** Call a tool with any official client (v2 or 1.x): both answer the same result shape. */
type CallTool = (name: string, args: Record<string, unknown>) => Promise<Json>;

describe('approvals over the stdio bridge (cyrnel-server mcp)', () => {
  const hosts = useAskingHosts(KEY);

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
      const data = await hosts.embeddedDir();
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
        await client.connect(bridgeTransport({ dataDir: data.path }));
        await approvedRun((name, args) => client.callTool({ name, arguments: args }), asked);
      } finally {
        await client.close();
        await data.remove();
      }
    });
  }

  it('asks a 1.x client of the embedded host (the SDK sends it the form on its connection)', async () => {
    const data = await hosts.embeddedDir();
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
      await client.connect(bridgeTransportV1({ dataDir: data.path }));
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
      await client.connect(bridgeTransport({ url: hosts.server().url, apiKey: hosts.agentKey() }));
      const run = await client.callTool({ name: 'execute_typescript', arguments: { code: ASKING_CODE } });
      const view = run.structuredContent as Json;
      // An agent key: never asked; the run waits, its output stays on the server until it ends.
      expect(asked).toHaveLength(0);
      expect(view).toMatchObject({
        state: 'waiting',
        approvalUrl: `${hosts.server().url}/ui/approvals/${view.approvalId}`,
      });
      expect((run.content as Json)[0].text).toContain(
        `${hosts.server().url}/ui/approvals/${view.approvalId}`,
      );
      const waiting = client.callTool({
        name: 'wait_process',
        arguments: { processId: view.processId, timeoutMs: 30_000 },
      });
      // A person with an admin key and a client that shows forms decides, over /mcp.
      await person.connect(
        new StreamableHTTPClientTransport(new URL(`${hosts.server().url}/mcp`), {
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
