import { describe, expect, it } from 'vitest';
import { efficiencyRatio, efficiencySummary, formatBytes, type ProcessMetrics } from './efficiency';

const metrics = (toolResultBytes: number, returnedBytes: number, toolCalls = 2): ProcessMetrics => ({
  toolCalls,
  toolResultBytes,
  returnedBytes,
  wallMs: 10,
  cpuMs: 2,
});

describe('the efficiency meter helpers', () => {
  it('formats bytes in powers of 1000 with one decimal, stepping up at the rounding edge', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1000)).toBe('1.0 KB');
    expect(formatBytes(1331)).toBe('1.3 KB');
    expect(formatBytes(999_960)).toBe('1.0 MB');
    expect(formatBytes(2_100_000)).toBe('2.1 MB');
    expect(formatBytes(4e9)).toBe('4.0 GB');
    expect(formatBytes(Number.NaN)).toBe('0 B');
    expect(formatBytes(-5)).toBe('0 B');
  });

  it('compares bytes read with bytes returned, and has no ratio when either side is empty', () => {
    expect(efficiencyRatio(metrics(2_100_000, 1_300))).toBe(1615.38);
    expect(efficiencyRatio(metrics(500, 1000))).toBe(0.5);
    expect(efficiencyRatio(metrics(0, 1000))).toBeNull();
    expect(efficiencyRatio(metrics(1000, 0))).toBeNull();
  });

  it('says in one sentence what a run read and returned, and which way the ratio goes', () => {
    expect(efficiencySummary(metrics(2_100_000, 1_300, 12))).toBe(
      'this run read 2.1 MB from tools in 12 calls and returned 1.3 KB to the model (1615.38× less)',
    );
    expect(efficiencySummary(metrics(500, 2_000, 1))).toBe(
      'this run read 500 B from tools in 1 call and returned 2.0 KB to the model (4× more)',
    );
    expect(efficiencySummary(metrics(0, 20, 0))).toBe(
      'this run read 0 B from tools in 0 calls and returned 20 B to the model',
    );
  });
});
