import { afterEach, describe, expect, it } from 'vitest';
import type { HostMetrics, RunEndedEvent, ToolCallEndedEvent } from '../src/index';
import { upstreamStatus } from '../src/index';
import { createHarness, type Harness } from './support/harness';
import { type AdapterProbe, createProbe, createTestAdapter, definition } from './support/test-adapter';
import {
  createEnvironmentProbe,
  createTestEnvironment,
  type EnvironmentProbe,
} from './support/test-environment';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const text = definition({
  tools: [{ id: 'listPets', name: 'List pets', description: 'Lists every pet in the store' }],
});

/** A host whose metrics land in `runs` and `calls`, with the store service installed. */
async function start(metrics?: Partial<HostMetrics>) {
  const adapter: AdapterProbe = createProbe();
  const environment: EnvironmentProbe = createEnvironmentProbe();
  const runs: RunEndedEvent[] = [];
  const calls: ToolCallEndedEvent[] = [];
  harness = await createHarness({
    builtins: [createTestAdapter('test', adapter), createTestEnvironment('env', environment)],
    metrics: {
      runEnded: metrics?.runEnded ?? ((event) => runs.push(event)),
      toolCallEnded: metrics?.toolCallEnded ?? ((event) => calls.push(event)),
    },
  });
  await harness.host.services.install({ id: 'store', adapter: 'test', definition: text, enabled: true });
  return { host: harness.host, adapter, environment, runs, calls };
}

const invoke = (serviceId: string, toolId: string) => ({
  method: 'invokeTool',
  args: [{ serviceId, toolId, parameters: {} }],
});
const program = (...steps: unknown[]) => `calls:${JSON.stringify(steps)}`;

describe('the host metrics', () => {
  it('reports each tool call, telling calls that reached their adapter from refused ones', async () => {
    const { host, adapter, calls, runs } = await start();
    const { id } = await host.processes.create({
      code: program(invoke('store', 'listPets'), invoke('store', 'nope'), invoke('made-up', 'x')),
    });
    expect((await host.processes.wait(id)).exitState).toBe('success');
    expect(calls.map(({ durationMs: _, ...call }) => call)).toEqual([
      { serviceId: 'store', toolId: 'listPets', reached: true, ok: true, errorReason: null, status: null },
      {
        serviceId: 'store',
        toolId: 'nope',
        reached: false,
        ok: false,
        errorReason: 'tool_not_found',
        status: null,
      },
      {
        serviceId: 'made-up',
        toolId: 'x',
        reached: false,
        ok: false,
        errorReason: 'service_not_found',
        status: null,
      },
    ]);
    for (const call of calls) expect(call.durationMs).toBeGreaterThanOrEqual(0);
    // An adapter that throws: the call reached it, and failed upstream.
    adapter.failInvoke = 'connection refused';
    const failed = await host.processes.create({ code: program(invoke('store', 'listPets')) });
    await host.processes.wait(failed.id);
    expect(calls.at(-1)).toMatchObject({ reached: true, ok: false, errorReason: 'upstream_failed' });
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run).toMatchObject({ exitState: 'success', errorReason: null });
      expect(run.runMs).toBeGreaterThanOrEqual(0);
      expect(run.queuedMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('reports a run killed while it runs, and one that never ran', async () => {
    const { host, environment, runs } = await start();
    environment.hold = true;
    const { id } = await host.processes.create({ code: 'held' });
    await expect.poll(() => environment.release.has(id)).toBe(true);
    await host.processes.kill(id);
    await host.processes.wait(id);
    expect(runs).toEqual([
      expect.objectContaining({
        exitState: 'canceled',
        errorReason: 'process_killed',
        queuedMs: expect.any(Number),
      }),
    ]);
  });

  it('keeps running runs when the metrics throw', async () => {
    const { host } = await start({
      runEnded: () => {
        throw new Error('broken sink');
      },
      toolCallEnded: () => {
        throw new Error('broken sink');
      },
    });
    const { id } = await host.processes.create({ code: program(invoke('store', 'listPets')) });
    const result = await host.processes.wait(id);
    expect(result.exitState).toBe('success');
    expect(result.output).toMatchObject({ results: [{ result: { route: '/listPets' } }] });
  });

  it('answers what the host is doing now: its runs by state, queues and workers', async () => {
    const { host, environment } = await start();
    environment.hold = true;
    const { id } = await host.processes.create({ code: 'held' });
    await expect.poll(() => environment.release.has(id)).toBe(true);
    const stats = await host.stats();
    expect(stats).toMatchObject({
      processes: { queued: 0, running: 1, waiting: 0, terminating: 0 },
      sharedQueue: 0,
      approvalsPending: 0,
      egress: { workers: 2, inFlight: 0, restarts: 0 },
      validation: { queued: 0, timeouts: 0 },
      // The test environment says nothing of sandboxes.
      environment: null,
    });
    environment.release.get(id)?.();
    await host.processes.wait(id);
    expect((await host.stats()).processes.running).toBe(0);
  });
});

describe('upstreamStatus', () => {
  it('reads the status of `{ status }` answers only', () => {
    expect(upstreamStatus({ status: 404, headers: {}, body: null })).toBe(404);
    expect(upstreamStatus({ status: 'teapot' })).toBeNull();
    expect(upstreamStatus({ status: 42 })).toBeNull();
    expect(upstreamStatus('pong')).toBeNull();
    expect(upstreamStatus(null)).toBeNull();
  });
});
