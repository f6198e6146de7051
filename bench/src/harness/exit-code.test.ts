import { describe, expect, it } from 'vitest';
import { benchConfig } from '../bench-config.ts';
import { exitCode } from './exit-code.ts';
import { createReport } from './report.ts';

const PEER = 'peer (@utcp/code-mode)';

describe('exitCode', () => {
  it('fails a quick run only for a part of the code under test that could not run', () => {
    const clean = createReport();
    expect(exitCode('quick', clean, [PEER])).toBe(0);
    const peerOnly = createReport();
    peerOnly.skip(PEER, new Error('cannot start'));
    expect(exitCode('quick', peerOnly, [PEER])).toBe(0);
    const broken = createReport();
    broken.skip('cyrnel: throughput', new Error('the server answered 500'));
    expect(exitCode('quick', broken, [PEER])).toBe(1);
    expect(exitCode('full', broken, [PEER])).toBe(0);
  });

  it('does not fail a run its time budget cut short: what the cut stopped is unfinished, not a skip', () => {
    const report = createReport();
    report.add({ section: 'latency', metric: 'floor', unit: 'ms', value: 1 });
    report.cut('the time budget of 1 s ran out');
    report.skip('cyrnel', new Error('fetch failed'));
    expect(report.cutReason).toBe('the time budget of 1 s ran out');
    expect(report.skips).toEqual([]);
    expect(report.unfinished).toEqual([{ section: 'cyrnel', reason: 'fetch failed' }]);
    expect(report.rows).toHaveLength(1);
    expect(exitCode('quick', report, [PEER])).toBe(0);
    // A failure before the cut still counts.
    const earlier = createReport();
    earlier.skip('cyrnel: idle memory', new Error('the server did not start'));
    earlier.cut('the time budget ran out');
    expect(exitCode('quick', earlier, [PEER])).toBe(1);
  });
});

describe('benchConfig', () => {
  it('reads --only, --budget-ms and --quick, and refuses what it does not know', () => {
    expect(benchConfig(['--only', 'idle-rss'])).toMatchObject({ mode: 'full', only: 'idle-rss' });
    expect(benchConfig(['--quick', '--budget-ms', '1500'])).toMatchObject({
      mode: 'quick',
      watchdogMs: 1500,
    });
    expect(benchConfig(['--quick']).watchdogMs).toBe(110_000);
    expect(() => benchConfig(['--only', 'everything'])).toThrow(/unknown part everything/);
    expect(() => benchConfig(['--budget-ms', 'soon'])).toThrow(/--budget-ms/);
  });
});
