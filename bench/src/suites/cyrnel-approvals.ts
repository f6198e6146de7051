import { performance } from 'node:perf_hooks';
import {
  createCallPolicy,
  createMemoryApprovalStorage,
  createMemoryCatalogStorage,
  createPolicyBook,
  DEFAULT_POLICY,
} from '@cyrnel/core';
import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { percentile, summarize } from '../harness/stats.ts';
import type { SuiteContext } from './suite-context.ts';

const SERVICE = 'approvals';

/** What one `allow` decision of the call policy costs, in process, against a floor loop of the same shape. */
export async function runDecisionCost(ctx: SuiteContext): Promise<void> {
  ctx.log('cyrnel: the cost of an allow decision');
  const catalog = createMemoryCatalogStorage();
  await catalog.insertService({
    id: 'svc',
    adapter: 'openapi',
    enabled: true,
    name: 'svc',
    description: '',
    hash: 'h',
    source: null,
    definition: '{}',
    configSchema: {},
    secretsSchema: {},
    adapterDomain: {},
    tools: [
      {
        id: 'read',
        name: 'read',
        description: '',
        enabled: true,
        inputSchema: {},
        outputSchema: {},
        adapterDomain: {},
        annotations: { readOnly: true },
      },
    ],
    config: {},
    secrets: null,
    createdAt: new Date().toISOString(),
  });
  const book = createPolicyBook({ catalog, revision: () => 1, server: DEFAULT_POLICY });
  const call = createCallPolicy({
    book,
    approvals: {} as never,
    approvalStorage: createMemoryApprovalStorage(),
    keyRules: async () => undefined,
  });
  // A run as the policy sees it: its key and the labels it accumulated.
  const run = { record: { id: 1, keyId: null }, labels: new Set(), code: '' } as never;
  await call.decide(run, 'svc', 'read');
  const n = 1_000_000;
  const floorMap = new Map([['svc', new Map([['read', { policy: 'allow' }]])]]);
  const time = (body: () => unknown) => {
    const start = performance.now();
    for (let i = 0; i < n; i++) body();
    return ((performance.now() - start) * 1000) / n;
  };
  const samples: number[] = [];
  const floors: number[] = [];
  for (let rep = 0; rep < 5; rep++) {
    floors.push(time(() => ({ ...floorMap.get('svc')?.get('read'), outcome: 'allowed' })));
    samples.push(
      time(() => {
        const verdict = call.decideNow(run, 'svc', 'read');
        if (verdict?.policy !== 'allow') throw new Error('not allowed');
        call.made(run, verdict);
        return call.decision(verdict, 'allowed');
      }),
    );
  }
  const stats = summarize(samples);
  const floor = summarize(floors).p50;
  ctx.report.add({
    section: 'policies',
    metric: 'cyrnel: one allow decision (in process)',
    unit: 'µs',
    stats,
    baseline: { label: 'two map lookups and the record object', value: floor },
    ...(floor > 0 ? { ratio: stats.p50 / floor } : {}),
    target: '≤ 5 µs',
    met: stats.p50 <= 5,
    note: `the call policy's decideNow + made + decision for a read-only tool, as the egress gateway's start audit makes it on the host's main thread; ${n.toLocaleString('en')} decisions per repetition`,
  });
}

/**
 * From a person's approve to the resumed call reaching the upstream: a process makes calls of a
 * tool that asks (a POST, the default policy), the bench approves each one over HTTP as soon as it
 * is pending and times the approve until the upstream receives the request.
 */
export async function runApprovalLatency(ctx: SuiteContext, api: CyrnelApi): Promise<void> {
  ctx.log('cyrnel: approve to resumed call');
  const { upstream } = ctx;
  await api.post('/services', {
    id: SERVICE,
    adapter: 'openapi',
    definition: upstream.openapi,
    enabled: true,
  });
  const count = ctx.config.mode === 'quick' ? 20 : 100;
  const code = `for (let i = 0; i < ${count}; i++) await cyrnel.services.${SERVICE}.tools.note.invoke({ query: { i } });\ncyrnel.output({ done: true });`;
  const before = upstream.notes.length;
  const process = (await api.post('/processes', { code, timeoutMs: 60_000 })) as { id: number };
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    let pending: { id: string } | undefined;
    for (let tries = 0; !pending; tries++) {
      if (tries > 20_000) throw new Error('no approval became pending');
      const page = (await api.get(`/approvals?state=pending&processId=${process.id}`)) as {
        items: { id: string }[];
      };
      pending = page.items[0];
      if (!pending) await new Promise((resolve) => setImmediate(resolve));
    }
    const start = performance.now();
    await api.post(`/approvals/${pending.id}`, { decision: 'approve' });
    const deadline = performance.now() + 30_000;
    while (upstream.notes.length < before + i + 1) {
      if (performance.now() > deadline) throw new Error(`approved call ${i} never reached the upstream`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    samples.push((upstream.notes[before + i] as number) - start);
  }
  const floor = await floorPost(upstream.url, 50);
  const stats = summarize(samples);
  const p95 = percentile(
    [...samples].sort((a, b) => a - b),
    95,
  );
  ctx.report.add({
    section: 'policies',
    metric: 'cyrnel: from approve to the resumed call',
    unit: 'ms',
    stats,
    baseline: { label: 'fetch POST to the upstream', value: floor },
    ...(floor > 0 ? { ratio: p95 / floor } : {}),
    target: '≤ 50 ms p95',
    met: p95 <= 50,
    note: `p95 ${p95.toFixed(1)} ms (ratio of the p95); ${count} approvals over HTTP (POST /approvals/:id), each timed until the upstream received the call; the approval's decision is stored, the waiting run resumes, the call goes through the gate to the egress gateway and out`,
  });
}

async function floorPost(url: string, reps: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    const res = await fetch(`${url}/note?i=${i}`, { method: 'POST' });
    await res.arrayBuffer();
    samples.push(performance.now() - start);
  }
  return summarize(samples).p50;
}
