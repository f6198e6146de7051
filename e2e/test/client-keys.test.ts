import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import { type RunningServer, startServer } from '@cyrnel/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let server: RunningServer;
let dataDir: string;
let admin: CyrnelClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'cyrnel-client-keys-'));
  server = await startServer({ dataDir, port: 0, apiKey: 'bootstrap', shutdownTimeoutMs: 1000 });
  admin = createClient({ baseUrl: server.url, apiKey: 'bootstrap' });
});

afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('client.keys', () => {
  it('creates, lists and deletes keys; an agent key runs processes but cannot manage keys', async () => {
    const created = await admin.keys.create({ name: 'support bot', role: 'agent' });
    expect(created).toMatchObject({ name: 'support bot', role: 'agent', lastUsedAt: null });
    expect(created.key).toMatch(/^cyk_/);
    const agent = createClient({ baseUrl: server.url, apiKey: created.key });
    const { output, keyId } = await agent.processes.run('cyrnel.output({ hi: 1 })');
    expect({ output, keyId }).toEqual({ output: { hi: 1 }, keyId: created.id });
    await expect(agent.keys.list()).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    await expect(agent.services.list()).rejects.toMatchObject({ status: 403, code: 'forbidden' });

    await admin.keys.create({ name: 'second', role: 'admin' });
    const names: string[] = [];
    for await (const key of admin.keys.iterate({ limit: 1 })) names.push(key.name);
    expect(names).toEqual(['support bot', 'second']);
    const listed = (await admin.keys.list()).items[0];
    expect(listed).toMatchObject({ id: created.id, prefix: created.prefix });
    expect(listed).not.toHaveProperty('key');

    await admin.keys.delete(created.id);
    await expect(agent.processes.list()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    await expect(admin.keys.delete(created.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});
