import { describe, expect, it } from 'vitest';
import { expectWithinBaseline } from '../../../../vitest.timing';
import { startEnvironment, waitFor } from '../recording-bindings';

const TRIVIAL = 'cyrnel.output({ ok: true });';
const tools = { 'svc.never': () => new Promise(() => {}), 'svc.echo': (p: unknown) => p };

/**
 * The floor of a trivial execution behind the attackers: a few hundred milliseconds on a quiet
 * machine; queued behind them it would wait for their 60-second timeout.
 */
const TRIVIAL_FLOOR_MS = 1_000;

/** Time a trivial execution (its timeout far away: the time is what is measured). */
async function timedTrivial(sandbox: Awaited<ReturnType<typeof startEnvironment>>) {
  const started = performance.now();
  const trivial = await sandbox.run(TRIVIAL, 60_000);
  return { trivial, elapsedMs: performance.now() - started };
}

/**
 * Time a trivial execution on a warm pool, then run `attack` `count` times (not awaited) and time
 * a trivial execution again.
 */
async function trivialBehind(attack: string, count: number, config: Record<string, unknown> = {}) {
  const sandbox = await startEnvironment({ poolSize: 2, ...config }, tools);
  try {
    await timedTrivial(sandbox);
    const baseline = await timedTrivial(sandbox);
    expect(baseline.trivial.exit).toBe('success');
    const running = () => sandbox.log.filter((e) => e.endsWith(':running')).length;
    const before = running();
    const firstEid = baseline.trivial.eid + 1;
    const attacks = Array.from({ length: count }, () => sandbox.run(attack, 60_000));
    // Every attacker got a sandbox (none is queued) before the trivial run arrives.
    await waitFor(() => running() === before + count, 30_000);
    const { trivial, elapsedMs } = await timedTrivial(sandbox);
    for (let eid = firstEid; eid < firstEid + count; eid++) await sandbox.env.kill(eid);
    const exits = (await Promise.all(attacks)).map((a) => a.exit);
    return {
      trivial,
      elapsedMs,
      baselineMs: baseline.elapsedMs,
      exits,
      children: sandbox.children.started().length,
    };
  } finally {
    await sandbox.env.teardown();
  }
}

describe('scheduling of awaiting executions', () => {
  it.each([
    ['tool calls that never answer', 'await cyrnel.services.svc.tools.never.invoke({});'],
    ['sleeping loops', 'while (true) await new Promise((r) => setTimeout(r, 1000));'],
  ])(
    'lets a trivial execution through while more programs than the pool size await %s',
    async (name, attack) => {
      const { trivial, elapsedMs, baselineMs, exits, children } = await trivialBehind(attack, 6);
      expect(trivial.exit).toBe('success');
      expect(trivial.record.output).toEqual({ ok: true });
      expectWithinBaseline(`a trivial execution behind six ${name}`, {
        attackMs: elapsedMs,
        baselineMs,
        floorMs: TRIVIAL_FLOOR_MS,
      });
      expect(exits).toEqual(Array(6).fill('canceled'));
      expect(children).toBe(2);
    },
  );
});
