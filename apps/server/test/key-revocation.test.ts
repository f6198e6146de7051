import { POSTGRES_TESTS } from '@cyrnel/store/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, type Json, parseSse, startTestServer, tempDir } from './helpers';
import { useSharedHosts } from './shared-hosts';

// A pending timer keeps the run alive (a promise nothing can settle would be ended at once).
const HANGS =
  'cyrnel.output({ started: true }); await new Promise((resolve) => setTimeout(resolve, 120_000));';
const ADMIN = 'revocation-admin';

/** An open `GET /processes/:id/events` stream: what it delivered once it ended. */
function openEvents(url: string, key: string, id: number): { opened: Promise<void>; text: Promise<string> } {
  let opened!: () => void;
  const openedPromise = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const text = (async () => {
    const response = await fetch(`${url}/processes/${id}/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    opened();
    return response.text();
  })();
  return { opened: openedPromise, text };
}

type Api = ReturnType<typeof apiClient>;

/** Poll the record of `id` until `done` holds of it. */
async function until(api: Api, id: number, done: (record: Json) => boolean): Promise<Json> {
  for (;;) {
    const record = (await api('GET', `/processes/${id}`)).body;
    if (done(record)) return record;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function createKey(admin: Api, name: string, role: 'agent' | 'admin') {
  const created = await admin('POST', '/keys', { name, role });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, key: created.body.key as string };
}

describe('deleting a key ends its processes and closes its streams', () => {
  let server: RunningServer;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let admin: Api;

  beforeAll(async () => {
    dir = await tempDir();
    server = await startTestServer({ dataDir: dir.path, port: 0, apiKey: ADMIN });
    admin = apiClient(server.url, ADMIN);
    // One sandbox process running one execution at a time: a second run waits in its queue.
    const patched = await admin('PATCH', '/modules/typescript-ivm/config', [
      { op: 'add', path: '/poolSize', value: 1 },
      { op: 'add', path: '/executionsPerChild', value: 1 },
    ]);
    expect(patched.status).toBe(200);
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
  });

  it('ends the running and the queued processes of the key as key_revoked and closes its event stream', async () => {
    const agent = await createKey(admin, 'doomed agent', 'agent');
    const api = apiClient(server.url, agent.key);
    const running = (await api('POST', '/processes', { code: HANGS })).body.id as number;
    await until(admin, running, (record) => record.state === 'running');
    const queued = (await api('POST', '/processes', { code: 'cyrnel.output({ ran: true });' })).body
      .id as number;
    expect((await admin('GET', `/processes/${queued}`)).body.state).toBe('queued');
    const stream = openEvents(server.url, agent.key, running);
    await stream.opened;

    expect((await admin('DELETE', `/keys/${agent.id}`)).status).toBe(204);

    // The stream ends (the client's read completes); the key is refused from now on.
    const delivered = parseSse(await stream.text);
    expect(delivered[0]?.event).toBe('state');
    expect((await api('GET', `/processes/${running}`)).status).toBe(401);
    for (const id of [running, queued]) {
      const record = (await admin('GET', `/processes/${id}`)).body;
      expect(record).toMatchObject({ state: 'idle', exitState: 'canceled', errorReason: 'key_revoked' });
    }
    // The queued one never ran.
    expect((await admin('GET', `/processes/${queued}`)).body.startedAt).toBeNull();
    expect((await admin('GET', `/processes/${queued}/output`)).body).toEqual({});
    // The sandbox is free again: another key's work runs.
    const other = await createKey(admin, 'next agent', 'agent');
    const next = await apiClient(server.url, other.key)('POST', '/processes', {
      code: 'cyrnel.output({ ok: 1 });',
      wait: true,
    });
    expect(next.body).toMatchObject({ exitState: 'success', output: { ok: 1 } });
  });

  it("closes a deleted admin key's stream of another key's process, which runs on", async () => {
    const agent = await createKey(admin, 'survivor', 'agent');
    const watcher = await createKey(admin, 'watching admin', 'admin');
    const api = apiClient(server.url, agent.key);
    const id = (await api('POST', '/processes', { code: HANGS })).body.id as number;
    await until(admin, id, (record) => record.state === 'running');
    const stream = openEvents(server.url, watcher.key, id);
    await stream.opened;

    expect((await admin('DELETE', `/keys/${watcher.id}`)).status).toBe(204);
    const delivered = parseSse(await stream.text);
    expect(delivered.some((event) => event.event === 'exit')).toBe(false);
    expect((await api('GET', `/processes/${id}`)).body).toMatchObject({
      state: 'running',
      errorReason: null,
    });
    expect((await api('POST', `/processes/${id}/signals/kill`)).status).toBe(200);
    await until(admin, id, (record) => record.state === 'idle');
    expect((await admin('GET', `/processes/${id}`)).body.errorReason).toBe('process_killed');
  });

  it('ends the MCP call of a deleted key: its process is key_revoked and its answer stream closes', async () => {
    const agent = await createKey(admin, 'mcp agent', 'agent');
    const client = new Client(
      { name: 'revocation-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agent.key}` } },
      }),
    );
    try {
      // Progress notifications make the answer a stream held open while the code runs.
      const call = client
        .callTool(
          { name: 'execute_typescript', arguments: { code: HANGS, timeoutMs: 300_000 } },
          { onprogress: () => undefined, timeout: 300_000 },
        )
        .then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
      let running: Json;
      while (!running) {
        running = (await admin('GET', `/processes?keyId=${agent.id}&state=running`)).body.items[0];
        if (!running) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect((await admin('DELETE', `/keys/${agent.id}`)).status).toBe(204);
      // The call ends (answered with the canceled run, or its stream closed), it does not hang.
      const outcome = await call;
      if ('result' in outcome)
        expect(outcome.result.structuredContent).toMatchObject({
          processId: running.id,
          exitState: 'canceled',
        });
      expect((await admin('GET', `/processes/${running.id}`)).body).toMatchObject({
        state: 'idle',
        exitState: 'canceled',
        errorReason: 'key_revoked',
      });
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('deleting a key on one of two hosts sharing PostgreSQL', () => {
  const hosts = useSharedHosts('cyrnel_revoke', ADMIN, { keyCheckMs: 200 });
  const start = async (hostId: string, hostSlots?: number) =>
    (await hosts.start(hostId, hostSlots === undefined ? {} : { hostSlots })).server;

  it("ends the key's run on the other host as key_revoked and closes the streams there", async () => {
    const a = await start('host-a');
    const b = await start('host-b');
    const adminA = apiClient(a.url, ADMIN);
    const adminB = apiClient(b.url, ADMIN);
    const agent = await createKey(adminA, 'agent of two hosts', 'agent');
    const watcher = await createKey(adminA, 'admin watching on b', 'admin');
    const onB = apiClient(b.url, agent.key);
    // Submitted to B, run on B (it has room).
    const id = (await onB('POST', '/processes', { code: HANGS })).body.id as number;
    const started = await until(adminB, id, (record) => record.state === 'running');
    expect(started.hostId).toBe('host-b');
    // Another process of another key that keeps running, watched on B by the admin key deleted next.
    const bystander = await createKey(adminA, 'bystander', 'agent');
    const other = (await apiClient(b.url, bystander.key)('POST', '/processes', { code: HANGS })).body
      .id as number;
    await until(adminB, other, (record) => record.state === 'running');
    const agentStream = openEvents(b.url, agent.key, id);
    const adminStream = openEvents(b.url, watcher.key, other);
    await Promise.all([agentStream.opened, adminStream.opened]);

    // Both keys are deleted on A.
    expect((await adminA('DELETE', `/keys/${agent.id}`)).status).toBe(204);
    expect((await adminA('DELETE', `/keys/${watcher.id}`)).status).toBe(204);

    const ended = await until(adminA, id, (record) => record.state === 'idle');
    expect(ended).toMatchObject({ exitState: 'canceled', errorReason: 'key_revoked' });
    // The run's own stream ends (with its exit, or closed first as its key's stream); the
    // admin's stream of the other run closes too.
    const exit = parseSse(await agentStream.text).find((event) => event.event === 'exit');
    if (exit) expect(exit.data).toMatchObject({ exitState: 'canceled', errorReason: 'key_revoked' });
    expect(parseSse(await adminStream.text).some((event) => event.event === 'exit')).toBe(false);
    expect((await adminB('GET', `/processes/${other}`)).body.state).toBe('running');
    expect((await onB('GET', '/processes')).status).toBe(401);
    expect((await adminB('POST', `/processes/${other}/signals/kill`)).status).toBe(200);
  });

  it('ends the runs of the key on both hosts and the work it left in the shared queue, which never starts', async () => {
    // The hosts of the other test would take work: only these two now.
    await hosts.closeAll();
    // One slot a host: the third process of the key waits in the shared queue, owned by no host.
    const a = await start('slot-a', 1);
    const b = await start('slot-b', 1);
    const adminA = apiClient(a.url, ADMIN);
    const agent = await createKey(adminA, 'agent filling both hosts', 'agent');
    const onB = apiClient(b.url, agent.key);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await onB('POST', '/processes', { code: HANGS })).body.id as number);
    const [first, second, third] = ids as [number, number, number];
    await until(adminA, first, (record) => record.state === 'running');
    const claimed = await until(adminA, second, (record) => record.state === 'running');
    expect([claimed.hostId, (await adminA('GET', `/processes/${first}`)).body.hostId].sort()).toEqual([
      'slot-a',
      'slot-b',
    ]);
    expect((await adminA('GET', `/processes/${third}`)).body).toMatchObject({
      state: 'queued',
      hostId: null,
    });

    expect((await adminA('DELETE', `/keys/${agent.id}`)).status).toBe(204);
    for (const id of ids) {
      const ended = await until(adminA, id, (record) => record.state === 'idle');
      expect(ended).toMatchObject({ exitState: 'canceled', errorReason: 'key_revoked' });
    }
    expect((await adminA('GET', `/processes/${third}`)).body.startedAt).toBeNull();
  });
});
