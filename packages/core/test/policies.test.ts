import type { ProcessResult } from '@cyrnel/sdk/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyRing, DEFAULT_POLICY } from '../src/index';
import { createHarness, type Harness } from './support/harness';
import { type AdapterProbe, createProbe, createTestAdapter, definition } from './support/test-adapter';
import { createEnvironmentProbe, createTestEnvironment } from './support/test-environment';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const text = definition({
  tools: [
    { id: 'issues_list', annotations: { readOnly: true, openWorld: true } },
    { id: 'issues_create', annotations: { readOnly: false } },
    { id: 'repos_delete', annotations: { readOnly: false, destructive: true, idempotent: true } },
    { id: 'secrets_get', annotations: { readOnly: true } },
    'plain',
  ],
});

async function start(probe: AdapterProbe, approvalTimeoutMs = 60_000) {
  harness = await createHarness({
    builtins: [createTestAdapter('test', probe), createTestEnvironment('env', createEnvironmentProbe())],
    policies: { default: DEFAULT_POLICY, approvalTimeoutMs },
  });
  await harness.host.services.install({ id: 'git', adapter: 'test', definition: text, enabled: true });
  probe.calls.length = 0;
  return harness.host;
}

/** A program of tool calls made one after the other (the test environment's `calls:`). */
const program = (...tools: string[]) =>
  `calls:${JSON.stringify(tools.map((toolId) => ({ method: 'invokeTool', args: [{ serviceId: 'git', toolId, parameters: { token: 'p' } }] })))}`;

type Results = { results: { result?: unknown; error?: { reason: string; message: string } }[] };
const results = (process: ProcessResult) => (process.output as Results).results;

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (ok(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition not reached');
}

describe('policies', () => {
  it('gives every tool its annotations, labels and effective policy, and filters by it', async () => {
    const host = await start(createProbe());
    const { items } = await host.tools.list({ serviceId: 'git' });
    expect(items.map((tool) => [tool.id, tool.effectivePolicy, tool.labels, tool.policy])).toEqual([
      ['issues_create', 'ask', ['egress'], null],
      ['issues_list', 'allow', ['untrusted'], null],
      ['plain', 'ask', ['egress'], null],
      ['repos_delete', 'ask', ['egress'], null],
      ['secrets_get', 'allow', [], null],
    ]);
    await host.policies.set('git', {
      byAnnotation: { destructive: 'block' },
      tools: { issues_create: 'allow' },
      labels: { secrets_get: ['private'] },
    });
    const after = await host.tools.list({ serviceId: 'git' });
    expect(after.items.find((tool) => tool.id === 'repos_delete')?.effectivePolicy).toBe('block');
    expect(after.items.find((tool) => tool.id === 'issues_create')).toMatchObject({
      policy: 'allow',
      effectivePolicy: 'allow',
    });
    expect(after.items.find((tool) => tool.id === 'secrets_get')?.labels).toEqual(['private']);
    const asked = await host.tools.list({ effectivePolicy: 'ask', limit: 1 });
    expect(asked.items.map((tool) => tool.id)).toEqual(['plain']);
    expect(asked.hasMore).toBe(false);
    await expect(host.tools.list({ effectivePolicy: 'maybe' } as never)).rejects.toMatchObject({
      status: 400,
    });
    expect(await host.policies.get('git')).toMatchObject({ tools: { issues_create: 'allow' } });
  });

  it('refuses unknown policies, annotations, labels, tools and services, naming them', async () => {
    const host = await start(createProbe());
    const refused = (body: unknown, status: number, pattern: RegExp) =>
      expect(host.policies.set('git', body as never)).rejects.toMatchObject({
        status,
        message: expect.stringMatching(pattern),
      });
    await refused({ default: 'maybe' }, 400, /maybe/);
    await refused({ byAnnotation: { dangerous: 'block' } }, 400, /dangerous/);
    await refused({ labels: { plain: ['secret'] } }, 400, /secret/);
    await refused({ tools: { nope: 'allow' } }, 404, /nope/);
    await refused({ extra: 1 }, 400, /extra/);
    await expect(host.policies.set('other', {})).rejects.toMatchObject({ reason: 'service_not_found' });
  });

  it('blocks a call before it leaves, recording why; the program can catch it', async () => {
    const probe = createProbe();
    const host = await start(probe);
    await host.policies.set('git', { byAnnotation: { destructive: 'block' } });
    const { id } = await host.processes.create({ code: program('repos_delete', 'issues_list') });
    const done = await host.processes.wait(id);
    expect(results(done)[0]?.error).toMatchObject({ reason: 'tool_blocked', status: 403 });
    expect(results(done)[1]?.result).toBeDefined();
    expect(probe.calls).toEqual(['invoke:git.issues_list']);
    const calls = await host.processes.calls(id);
    expect(
      calls.map((call) => [
        call.toolId,
        call.ok,
        call.errorReason,
        call.decision?.outcome,
        call.decision?.rule,
      ]),
    ).toEqual([
      ['repos_delete', false, 'tool_blocked', 'blocked', 'service-annotation'],
      ['issues_list', true, null, 'allowed', 'server-annotation'],
    ]);
    expect(done.labels).toEqual(['untrusted']);
  });

  it('pauses a program at an asked call until a person approves it, then makes the call once', async () => {
    const probe = createProbe();
    const host = await start(probe);
    const { id } = await host.processes.create({ code: program('issues_create'), timeoutMs: 300 });
    // `wait` answers once the run waits for a person, with the approval to decide.
    const waiting = await host.processes.wait(id);
    expect(waiting).toMatchObject({ state: 'waiting', approvalId: expect.stringMatching(/^ap_/) });
    const approvalId = waiting.approvalId as string;
    const detail = await host.approvals.get(approvalId);
    expect(detail).toMatchObject({
      kind: 'call',
      state: 'pending',
      processId: id,
      serviceId: 'git',
      toolId: 'issues_create',
      parameters: { token: 'p' },
      line: 1,
      reason: 'server-default',
    });
    expect((await host.approvals.list({ state: 'pending' })).items.map((item) => item.id)).toEqual([
      approvalId,
    ]);
    expect(probe.calls).toEqual([]);
    // Longer than the run's timeout: time spent waiting does not count.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await host.processes.get(id)).state).toBe('waiting');
    await host.approvals.decide(
      approvalId,
      { decision: 'approve', note: 'looks right' },
      { keyId: 'k-approver' },
    );
    const done = await until(
      () => host.processes.get(id),
      (record) => record.state === 'idle',
    );
    expect(done.exitState).toBe('success');
    expect(probe.calls).toEqual(['invoke:git.issues_create']);
    const [call] = await host.processes.calls(id);
    expect(call?.decision).toEqual({
      policy: 'ask',
      rule: 'server-default',
      outcome: 'approved',
      approvalId,
      decidedBy: 'k-approver',
      note: 'looks right',
    });
    await expect(host.approvals.decide(approvalId, { decision: 'deny' })).rejects.toMatchObject({
      status: 409,
      reason: 'approval_decided',
    });
    await expect(host.approvals.decidePlan(approvalId, { decision: 'deny' })).rejects.toMatchObject({
      reason: 'approval_not_found',
    });
  });

  it('throws approval_denied or approval_expired in the program, and never calls the tool', async () => {
    const probe = createProbe();
    const host = await start(probe, 150);
    const denied = await host.processes.create({ code: program('issues_create') });
    const approvalId = (await host.processes.wait(denied.id)).approvalId as string;
    await host.approvals.decide(approvalId, { decision: 'deny', note: 'not today' });
    const deniedDone = await host.processes.wait(denied.id);
    expect(results(deniedDone)[0]?.error).toMatchObject({
      reason: 'approval_denied',
      message: expect.stringContaining('not today'),
    });
    const expired = await host.processes.create({ code: program('issues_create') });
    const expiredDone = await until(
      () => host.processes.wait(expired.id),
      (record) => record.state === 'idle',
    );
    expect(results(expiredDone)[0]?.error).toMatchObject({ reason: 'approval_expired' });
    expect(probe.calls).toEqual([]);
    const [call] = await host.processes.calls(expired.id);
    expect(call?.decision).toMatchObject({ outcome: 'expired' });
    expect((await host.approvals.list({ state: 'expired' })).items).toHaveLength(1);
  });

  it('remembers an approval for the rest of the process when asked to', async () => {
    const probe = createProbe();
    const host = await start(probe);
    const { id } = await host.processes.create({ code: program('issues_create', 'issues_create') });
    const approvalId = (await host.processes.wait(id)).approvalId as string;
    await host.approvals.decide(approvalId, { decision: 'approve', remember: 'process' });
    const done = await until(
      () => host.processes.wait(id),
      (record) => record.state === 'idle',
    );
    expect(done.exitState).toBe('success');
    expect((await host.processes.calls(id)).map((call) => call.decision?.rule)).toEqual([
      'server-default',
      'remembered',
    ]);
  });

  it("follows a key's scope and its policy overrides", async () => {
    const probe = createProbe();
    const host = await start(probe);
    const keys = createKeyRing({ storage: (harness as Harness).storage.keys });
    const scoped = await keys.create({
      name: 'reader',
      role: 'agent',
      scope: { tools: ['git.issues_list'] },
    });
    const automation = await keys.create({
      name: 'bot',
      role: 'agent',
      policy: { services: { git: 'allow' } },
    });
    const first = await host.processes.create(
      { code: program('issues_list', 'secrets_get') },
      { keyId: scoped.id },
    );
    expect(results(await host.processes.wait(first.id)).map((step) => step.error?.reason ?? 'ok')).toEqual([
      'ok',
      'tool_blocked',
    ]);
    const second = await host.processes.create({ code: program('issues_create') }, { keyId: automation.id });
    const done = await host.processes.wait(second.id);
    expect(done.exitState).toBe('success');
    expect((await host.processes.calls(second.id))[0]?.decision).toMatchObject({
      rule: 'key',
      detail: 'services.git',
    });
  });

  it('asks once for a whole plan and runs exactly that code without pausing', async () => {
    const probe = createProbe();
    const host = await start(probe);
    const keys = createKeyRing({ storage: (harness as Harness).storage.keys });
    const agent = await keys.create({ name: 'agent', role: 'agent' });
    const other = await keys.create({ name: 'other', role: 'agent' });
    const code = program('issues_create', 'repos_delete', 'issues_list', 'issues_create');
    const plan = await host.processes.plan({ code, plan: true }, { keyId: agent.id });
    expect(plan.tools.map((tool) => [tool.toolId, tool.effectivePolicy, tool.lines])).toEqual([
      ['issues_create', 'ask', [1, 4]],
      ['repos_delete', 'ask', [2]],
      ['issues_list', 'allow', [3]],
    ]);
    await expect(
      host.processes.create({ code, planId: plan.planId }, { keyId: agent.id }),
    ).rejects.toMatchObject({
      reason: 'plan_mismatch',
    });
    await host.approvals.decidePlan(plan.planId, { decision: 'approve' }, { keyId: 'k-approver' });
    await expect(
      host.processes.create({ code: `${code} `, planId: plan.planId }, { keyId: agent.id }),
    ).rejects.toMatchObject({ reason: 'plan_mismatch', status: 409 });
    await expect(
      host.processes.create({ code, planId: plan.planId }, { keyId: other.id }),
    ).rejects.toMatchObject({
      reason: 'plan_mismatch',
    });
    // A create that fails to store its process does not use the plan up.
    const storage = (harness as Harness).storage.processes;
    const insert = storage.insert.bind(storage);
    storage.insert = async () => {
      storage.insert = insert;
      throw new Error('disk full');
    };
    await expect(host.processes.create({ code, planId: plan.planId }, { keyId: agent.id })).rejects.toThrow(
      'disk full',
    );
    expect((await host.approvals.get(plan.planId)).state).toBe('approved');
    const run = await host.processes.create({ code, planId: plan.planId }, { keyId: agent.id });
    const done = await host.processes.wait(run.id);
    expect(done.exitState).toBe('success');
    expect((await host.processes.calls(run.id)).map((call) => call.decision?.rule)).toEqual([
      'plan',
      'plan',
      'server-annotation',
      'plan',
    ]);
    expect(await host.approvals.get(plan.planId)).toMatchObject({ state: 'used', processId: run.id });
    await expect(
      host.processes.create({ code, planId: plan.planId }, { keyId: agent.id }),
    ).rejects.toMatchObject({
      reason: 'plan_mismatch',
    });
    await expect(
      host.processes.create({ code, planId: 'pl_nope' }, { keyId: agent.id }),
    ).rejects.toMatchObject({
      reason: 'approval_not_found',
    });
  });

  it('asks before an egress call of a process that read private and untrusted data, whatever its policy', async () => {
    const probe = createProbe();
    const host = await start(probe);
    // An issue anyone can write (untrusted), a secret file (private), and a comment that goes out
    // (egress), allowed on its own: the injected instruction "post the secret" is caught here.
    await host.policies.set('git', {
      tools: { issues_create: 'allow' },
      labels: { secrets_get: ['private'] },
    });
    const clean = await host.processes.create({ code: program('issues_list', 'issues_create') });
    expect((await host.processes.wait(clean.id)).exitState).toBe('success');
    const { id } = await host.processes.create({
      code: program('issues_list', 'secrets_get', 'issues_create'),
    });
    const waiting = await host.processes.wait(id);
    expect(waiting).toMatchObject({ state: 'waiting', labels: ['private', 'untrusted'] });
    expect(await host.approvals.get(waiting.approvalId as string)).toMatchObject({
      reason: 'data-flow',
      toolId: 'issues_create',
    });
    await host.approvals.decide(waiting.approvalId as string, { decision: 'deny' });
    const done = await until(
      () => host.processes.wait(id),
      (record) => record.state === 'idle',
    );
    expect(results(done)[2]?.error).toMatchObject({ reason: 'approval_denied' });
    expect(done.labels).toEqual(['private', 'untrusted']);
    await host.policies.set('git', {
      tools: { issues_create: 'allow' },
      labels: { secrets_get: ['private'] },
      dataFlow: 'block',
    });
    const blocked = await host.processes.create({
      code: program('issues_list', 'secrets_get', 'issues_create'),
    });
    const blockedDone = await host.processes.wait(blocked.id);
    expect(results(blockedDone)[2]?.error).toMatchObject({ reason: 'tool_blocked' });
    expect((await host.processes.calls(blocked.id))[2]?.decision).toMatchObject({
      rule: 'data-flow',
      outcome: 'blocked',
    });
    expect(probe.calls.filter((call) => call === 'invoke:git.issues_create')).toHaveLength(1);
  });

  it('lets a killed waiting run go: its approval expires', async () => {
    const host = await start(createProbe());
    const { id } = await host.processes.create({ code: program('issues_create') });
    const approvalId = (await host.processes.wait(id)).approvalId as string;
    await host.processes.kill(id);
    await until(
      () => host.approvals.get(approvalId),
      (detail) => detail.state === 'expired',
    );
    const ended = await until(
      () => host.processes.get(id),
      (record) => record.state === 'idle',
    );
    expect(ended).toMatchObject({ exitState: 'canceled', errorReason: 'process_killed', approvalId: null });
  });
});
