import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CyrnelHost,
  createHost,
  createLocalSignals,
  DEFAULT_POLICY,
  type HostSignals,
} from '../src/index';
import { createHarnessStorage } from './support/harness';
import { createProbe, createTestAdapter, definition } from './support/test-adapter';
import { createEnvironmentProbe, createTestEnvironment } from './support/test-environment';

// Two hosts share their storages and signals (PostgreSQL and LISTEN/NOTIFY in production): a run
// on one host waits for an approval a person decides through the other.
const SECRETS_KEY = randomBytes(32);
const hosts: CyrnelHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0).reverse()) await host.close({ graceMs: 0 });
});

async function startHost(
  storage: ReturnType<typeof createHarnessStorage> & { signals: HostSignals },
  id: string,
  pollMs: number,
) {
  const host = await createHost({
    storage,
    builtins: [
      createTestAdapter('test', createProbe()),
      createTestEnvironment('env', createEnvironmentProbe()),
    ],
    secretsKey: SECRETS_KEY,
    policies: { default: DEFAULT_POLICY },
    // A lease far longer than a beat: a loaded machine must not make a live host look silent.
    host: { id, heartbeatMs: 100, leaseMs: 1_500, catalogPollMs: pollMs, queuePollMs: pollMs },
  });
  hosts.push(host);
  return host;
}

const code = `calls:${JSON.stringify([{ method: 'invokeTool', args: [{ serviceId: 'git', toolId: 'issues_create', parameters: {} }] }])}`;

describe('approvals on several hosts', () => {
  it('resumes a run on one host when its approval is decided on another, by the signal', async () => {
    const local = createLocalSignals();
    const published: string[] = [];
    const signals: HostSignals = {
      publish: (topic, payload) => {
        published.push(`${topic}:${payload}`);
        return local.publish(topic, payload);
      },
      subscribe: (topic, handler) => local.subscribe(topic, handler),
    };
    const storage = { ...createHarnessStorage(), signals };
    const a = await startHost(storage, 'a', 5_000);
    const b = await startHost(storage, 'b', 5_000);
    await a.services.install({
      id: 'git',
      adapter: 'test',
      definition: definition({ tools: ['issues_create'] }),
      enabled: true,
    });
    const { id } = await a.processes.create({ code });
    const waiting = await a.processes.wait(id);
    expect(waiting.state).toBe('waiting');
    // The other host sees the waiting run and its approval in the shared store (once written).
    for (let i = 0; i < 200 && (await b.processes.get(id)).state !== 'waiting'; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await b.processes.get(id)).state).toBe('waiting');
    expect((await b.approvals.list({ state: 'pending' })).items.map((item) => item.id)).toEqual([
      waiting.approvalId,
    ]);
    await b.approvals.decide(waiting.approvalId as string, { decision: 'approve' }, { keyId: 'person' });
    const done = await a.processes.wait(id);
    expect(done.exitState).toBe('success');
    // Told by a signal (the 2 s poll is the backstop of a lost one).
    expect(published).toContain(`approval:${waiting.approvalId}`);
    expect((await b.processes.calls(id))[0]?.decision).toMatchObject({
      outcome: 'approved',
      decidedBy: 'person',
    });
  });
});
