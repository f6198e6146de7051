import type { ServicePolicy } from '@cyrnel/sdk/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../src/index';
import { sendJson, startWireServer, type WireServer } from './wire-server';

let server: WireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: Parameters<typeof startWireServer>[0]): Promise<WireServer> {
  server = await startWireServer(handler);
  return server;
}

const RECORD = {
  id: 7,
  ref: null,
  keyId: 'k1',
  state: 'waiting',
  exitState: null,
  error: null,
  errorReason: null,
  timeoutMs: 30000,
  envConfig: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  completedAt: null,
  hostId: null,
  labels: [],
  approvalId: 'a1',
};

const PLAN = {
  planId: 'p1',
  state: 'pending',
  codeHash: 'ab',
  tools: [],
  unknown: [],
  expiresAt: '2026-01-01T00:10:00.000Z',
};

describe('approvals, policies and plans', () => {
  it('lists approvals by state and sends decisions with their note and what to remember', async () => {
    const { baseUrl, seen } = await serve((_req, res) => sendJson(res, 200, { items: [], hasMore: false }));
    const client = createClient({ baseUrl });
    await client.approvals.list({ state: 'pending', processId: '7', limit: 10 });
    await client.approvals.decide('a/1', { decision: 'approve', note: '<b>ok</b>', remember: 'key' });
    await client.approvals.decidePlan('p1', { decision: 'deny' });
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /approvals?state=pending&processId=7&limit=10',
      'POST /approvals/a%2F1',
      'POST /approvals/plans/p1',
    ]);
    expect(JSON.parse(seen[1]?.body ?? '')).toEqual({
      decision: 'approve',
      note: '<b>ok</b>',
      remember: 'key',
    });
    expect(JSON.parse(seen[2]?.body ?? '')).toEqual({ decision: 'deny' });
  });

  it("reads and replaces a service's policy with PUT and a JSON body", async () => {
    const policy: ServicePolicy = {
      default: 'ask',
      byAnnotation: { readOnly: 'allow' },
      tools: { issues_create: 'block' },
    };
    const { baseUrl, seen } = await serve((req, res) =>
      sendJson(res, 200, req.body ? JSON.parse(req.body) : {}),
    );
    const client = createClient({ baseUrl });
    await expect(client.services.getPolicy('gh')).resolves.toEqual({});
    await expect(client.services.setPolicy('gh', policy)).resolves.toEqual(policy);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /services/gh/policy',
      'PUT /services/gh/policy',
    ]);
    expect(seen[1]?.headers['content-type']).toBe('application/json');
  });

  it('asks for the plan of code with plan:true, and runs an approved plan by its id', async () => {
    const { baseUrl, seen } = await serve((req, res) => {
      const body = JSON.parse(req.body);
      if (body.plan) return sendJson(res, 201, PLAN);
      return sendJson(res, 201, {
        ...RECORD,
        state: 'idle',
        exitState: 'success',
        output: {},
        stdout: '',
        stderr: '',
      });
    });
    const client = createClient({ baseUrl });
    await expect(client.processes.plan('await x()')).resolves.toEqual(PLAN);
    await client.processes.run('await x()', { planId: 'p1' });
    expect(seen.map((request) => JSON.parse(request.body))).toEqual([
      { code: 'await x()', plan: true },
      { code: 'await x()', planId: 'p1', wait: true },
    ]);
  });

  it('keeps waiting in run() when the server answers early because the run waits for an approval', async () => {
    const finished = { ...RECORD, state: 'idle', exitState: 'success', approvalId: null };
    const { baseUrl, seen } = await serve((req, res) => {
      const path = new URL(req.url, 'http://x').pathname;
      // The results so far: the run waits for an approval.
      if (req.method === 'POST') return sendJson(res, 201, { ...RECORD, output: {}, stdout: '', stderr: '' });
      if (path === '/processes/7/events') {
        const events = [
          ['state', { state: 'waiting', exitState: null }],
          ['approval', { approvalId: 'a1', serviceId: 's', toolId: 't' }],
          ['exit', { exitState: 'success', error: null, errorReason: null }],
        ];
        return res
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end(events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
      }
      if (path === '/processes/7') return sendJson(res, 200, finished);
      if (path === '/processes/7/output') return sendJson(res, 200, { done: true });
      return res.writeHead(200, { 'content-type': 'text/plain' }).end(path.endsWith('stdout') ? 'out' : '');
    });
    const result = await createClient({ baseUrl }).processes.run('await s.t()', { throwOnFailure: true });
    expect(result).toEqual({ ...finished, output: { done: true }, stdout: 'out', stderr: '' });
    expect(
      seen.map((request) => `${request.method} ${new URL(request.url, 'http://x').pathname}`).sort(),
    ).toEqual([
      'GET /processes/7',
      'GET /processes/7/events',
      'GET /processes/7/output',
      'GET /processes/7/stderr',
      'GET /processes/7/stdout',
      'POST /processes',
    ]);
  });
});
