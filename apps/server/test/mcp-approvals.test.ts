import {
  Client,
  type ElicitRequestFormParams,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ASKING_CODE, ASKING_LINE, useAskingShop } from './approval-helpers';
import type { Json } from './helpers';

const KEY = 'mcp-approvals-admin-key';

/** What a person answers in the form: approve or deny with a note, or decline the form. */
type Answer = { action: 'accept'; decision: 'approve' | 'deny'; note?: string } | { action: 'decline' };

const reply = (answer: Answer) =>
  answer.action === 'accept'
    ? {
        action: 'accept' as const,
        content: { decision: answer.decision, ...(answer.note ? { note: answer.note } : {}) },
      }
    : { action: 'decline' as const };

describe('approvals over MCP (/mcp)', () => {
  const shop = useAskingShop(KEY);
  const closers: (() => Promise<unknown>)[] = [];

  /**
   * A connected official client (v2): `modern` negotiates 2026-07-28, `legacy` the 2025
   * handshake. With `answer`, it declares form elicitation and answers every form so, keeping
   * what it was asked in `asked`.
   */
  const connect = async (era: 'modern' | 'legacy', key: string, answer?: Answer) => {
    const asked: ElicitRequestFormParams[] = [];
    const client = new Client(
      { name: 'approvals-test', version: '1.0.0' },
      {
        ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
        ...(answer ? { capabilities: { elicitation: { form: {} } } } : {}),
      },
    );
    if (answer)
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params as ElicitRequestFormParams);
        return reply(answer);
      });
    const transport = new StreamableHTTPClientTransport(new URL(`${shop.url()}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    closers.push(() => client.close());
    return { client, asked };
  };

  /** As a person with an admin key and a client that shows forms: wait on `processId`, answering so. */
  const decideThroughClient = async (processId: number, answer: Answer) => {
    const { client, asked } = await connect('modern', shop.person().key, answer);
    const view = await client.callTool({ name: 'wait_process', arguments: { processId } });
    return { view: view.structuredContent as Json, asked };
  };

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
  });

  it('lists wait_process beside the other tools and tells agents about approvals', async () => {
    const { client } = await connect('modern', shop.agentKey());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'check_typescript',
      'execute_typescript',
      'get_process',
      'get_tool_types',
      'search_tools',
      'wait_process',
    ]);
    const execute = tools.find((tool) => tool.name === 'execute_typescript');
    expect(execute?.description).toContain('wait_process');
    expect(execute?.description).toContain('approval_denied');
    expect(client.getInstructions()).toContain('wait_process');
  });

  it('asks a 2026-07-28 client that shows forms, decides as its key and answers the result', async () => {
    const { client, asked } = await connect('modern', shop.person().key, {
      action: 'accept',
      decision: 'approve',
      note: 'fine by me',
    });
    const run = await client.callTool({ name: 'execute_typescript', arguments: { code: ASKING_CODE } });
    expect(run.isError).toBeFalsy();
    expect(run.structuredContent).toMatchObject({
      state: 'idle',
      exitState: 'success',
      output: { step: 'after', status: 200 },
      approvalId: null,
      toolCalls: [
        {
          serviceId: 'shop',
          toolId: 'createOrder',
          ok: true,
          decision: { policy: 'ask', outcome: 'approved', decidedBy: shop.person().id, note: 'fine by me' },
        },
      ],
    });
    expect(asked).toHaveLength(1);
    const form = asked[0] as ElicitRequestFormParams;
    expect(form.message).toContain('shop.createOrder');
    expect(form.message).toContain('{"body":{"userId":7,"amount":12}}');
    expect(form.message).toContain(
      `Line ${ASKING_LINE}: const made = await cyrnel.services.shop.tools.createOrder`,
    );
    expect(form.requestedSchema.required).toEqual(['decision']);
    expect(shop.upstream().requests).toContain('POST /orders');
  });

  it('denies the call when the person declines the form; the program goes on', async () => {
    const { client, asked } = await connect('modern', shop.person().key, { action: 'decline' });
    const run = await client.callTool({ name: 'execute_typescript', arguments: { code: ASKING_CODE } });
    expect(asked).toHaveLength(1);
    expect(run.structuredContent).toMatchObject({
      exitState: 'success',
      output: { step: 'failed', reason: 'approval_denied' },
      toolCalls: [
        { toolId: 'createOrder', ok: false, errorReason: 'approval_denied', decision: { outcome: 'denied' } },
      ],
    });
  });

  it('never asks an agent key, which may not approve its own calls: it answers where a person approves', async () => {
    const { client, asked } = await connect('modern', shop.agentKey(), {
      action: 'accept',
      decision: 'approve',
    });
    const run = await client.callTool({ name: 'execute_typescript', arguments: { code: ASKING_CODE } });
    const view = run.structuredContent as Json;
    expect(asked).toHaveLength(0);
    expect(run.isError).toBeFalsy();
    expect(view).toMatchObject({
      state: 'waiting',
      exitState: null,
      output: { step: 'before' },
      stdout: 'asking\n',
      approvalUrl: `${shop.url()}/ui/approvals/${view.approvalId}`,
    });
    expect(view.approvalId).toMatch(/^ap_/);
    const text = (run.content as Json)[0].text as string;
    expect(text).toContain(`waits for approval ${view.approvalId}`);
    expect(text).toContain(`${shop.url()}/ui/approvals/${view.approvalId}`);
    expect(text).toContain(`call wait_process with processId ${view.processId}`);

    const looked = await client.callTool({ name: 'get_process', arguments: { processId: view.processId } });
    expect(looked.structuredContent).toMatchObject({ state: 'waiting', approvalId: view.approvalId });
    const waited = await client.callTool({
      name: 'wait_process',
      arguments: { processId: view.processId, timeoutMs: 300 },
    });
    expect(waited.structuredContent).toMatchObject({ state: 'waiting', approvalId: view.approvalId });

    // A person (an admin key whose client shows forms) takes the run up and denies the call.
    const person = await decideThroughClient(view.processId, {
      action: 'accept',
      decision: 'deny',
      note: 'no',
    });
    expect(person.asked).toHaveLength(1);
    expect(person.view).toMatchObject({
      state: 'idle',
      output: { step: 'failed', reason: 'approval_denied' },
    });
    const ended = await client.callTool({ name: 'wait_process', arguments: { processId: view.processId } });
    expect(ended.structuredContent).toMatchObject({
      state: 'idle',
      exitState: 'success',
      toolCalls: [
        { toolId: 'createOrder', decision: { outcome: 'denied', approvalId: view.approvalId, note: 'no' } },
      ],
    });
  });

  it('wait_process waits through the approval until a person decides, then answers the result', async () => {
    const { client } = await connect('modern', shop.agentKey());
    const run = await client.callTool({ name: 'execute_typescript', arguments: { code: ASKING_CODE } });
    const { processId } = run.structuredContent as Json;
    const waiting = client.callTool({ name: 'wait_process', arguments: { processId, timeoutMs: 30_000 } });
    const decided = await decideThroughClient(processId, { action: 'accept', decision: 'approve' });
    expect(decided.view).toMatchObject({ exitState: 'success', output: { step: 'after' } });
    expect((await waiting).structuredContent).toMatchObject({
      state: 'idle',
      exitState: 'success',
      output: { step: 'after', status: 200 },
    });
  });

  it('falls back to the link for 2025-era clients over HTTP (each request its own stateless server): v2 and 1.x', async () => {
    const legacy = await connect('legacy', shop.person().key, { action: 'accept', decision: 'approve' });
    const v1Asked: unknown[] = [];
    const v1 = new ClientV1(
      { name: 'approvals-v1', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    v1.setRequestHandler(ElicitRequestSchema, async (request) => {
      v1Asked.push(request.params);
      return { action: 'accept', content: { decision: 'approve' } };
    });
    await v1.connect(
      new TransportV1(new URL(`${shop.url()}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${shop.person().key}` } },
      }),
    );
    closers.push(() => v1.close());
    type Call = (name: string, args: Record<string, unknown>) => Promise<Json>;
    const calls: Call[] = [
      (name, args) => legacy.client.callTool({ name, arguments: args }),
      (name, args) => v1.callTool({ name, arguments: args }),
    ];
    for (const call of calls) {
      const run = await call('execute_typescript', { code: ASKING_CODE });
      const view = run.structuredContent as Json;
      expect(view).toMatchObject({ state: 'waiting', output: { step: 'before' } });
      expect((run.content as Json)[0].text).toContain(`${shop.url()}/ui/approvals/${view.approvalId}`);
      const decided = await decideThroughClient(view.processId, { action: 'accept', decision: 'approve' });
      expect(decided.view).toMatchObject({ exitState: 'success', output: { step: 'after' } });
      const ended = await call('wait_process', { processId: view.processId });
      expect(ended.structuredContent).toMatchObject({
        state: 'idle',
        output: { step: 'after', status: 200 },
      });
    }
    expect(legacy.asked).toHaveLength(0);
    expect(v1Asked).toHaveLength(0);
  });

  it('refuses a retry whose state was tampered with, and runs nothing for it', async () => {
    const { client } = await connect('modern', shop.person().key);
    const before = (await shop.api('GET', '/processes?limit=1')).body.items[0]?.id;
    const outcome = await client
      .callTool({
        name: 'execute_typescript',
        arguments: { code: ASKING_CODE },
        inputResponses: { approval: { action: 'accept', content: { decision: 'approve' } } },
        requestState: 'v1.eyJwIjp7fX0.forged',
      } as never)
      .then(
        (result) => JSON.stringify(result),
        (error: unknown) => String(error),
      );
    expect(outcome).toContain('Invalid or expired requestState');
    expect((await shop.api('GET', '/processes?limit=1')).body.items[0]?.id).toBe(before);
  });
});
