import { describe, expect, it } from 'vitest';
import { percentile, summarize } from './stats.ts';

describe('summarize', () => {
  it('computes nearest-rank percentiles, mean, min and max', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    const stats = summarize(samples);
    expect(stats).toEqual({ n: 100, p50: 50, p90: 90, p99: 99, mean: 50.5, min: 1, max: 100 });
  });

  it('gives NaN for no samples', () => {
    expect(Number.isNaN(summarize([]).p50)).toBe(true);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
  });

  it('handles a single sample', () => {
    expect(summarize([7])).toMatchObject({ p50: 7, p90: 7, p99: 7 });
  });
});
