import { describe, expect, it } from 'vitest';
import { compare } from './compare.ts';
import { createReport } from './report.ts';

describe('compare', () => {
  it('sets the ratio against the baseline row and judges the target', () => {
    const report = createReport();
    report.add({ section: 'tool calls', metric: 'fetch', unit: 'ms', value: 100 });
    const row = compare(report, {
      section: 'tool calls',
      metric: 'cyrnel',
      unit: 'ms',
      value: 105,
      baseline: 'fetch',
      label: 'fetch',
      maxRatio: 1.1,
      target: '≤ 1.10×',
    });
    expect(row.ratio).toBeCloseTo(1.05);
    expect(row.met).toBe(true);
  });

  it('marks the target not judged when the baseline did not run', () => {
    const report = createReport();
    const row = compare(report, {
      section: 'x',
      metric: 'm',
      unit: 'ms',
      value: 1,
      baseline: 'gone',
      label: 'g',
      maxRatio: 2,
      target: '≤ 2×',
    });
    expect(row.met).toBeNull();
    expect(row.note).toContain('did not run');
  });
});
