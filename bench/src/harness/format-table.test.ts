import { describe, expect, it } from 'vitest';
import { markdownReport, num, textTable } from './format-table.ts';
import { machineInfo } from './machine-info.ts';
import { createReport } from './report.ts';
import { summarize } from './stats.ts';

describe('format-table', () => {
  it('formats numbers with about three significant digits', () => {
    expect(num(1234.5)).toBe('1,235');
    expect(num(123.4)).toBe('123');
    expect(num(12.34)).toBe('12.3');
    expect(num(1.234)).toBe('1.23');
    expect(num(0.1234)).toBe('0.123');
    expect(num(undefined)).toBe('');
  });

  it('prints rows with baselines, ratios and verdicts, and lists targets and skips in Markdown', () => {
    const report = createReport();
    report.add({ section: 'latency', metric: 'floor', unit: 'ms', value: 1 });
    report.add({
      section: 'latency',
      metric: 'cyrnel',
      unit: 'ms',
      stats: summarize([2, 2, 3]),
      baseline: { label: 'floor', value: 1 },
      ratio: 2,
      target: '≤ 1.5×',
      met: false,
    });
    report.skip('peer', new Error('cannot start'));
    const text = textTable(report.rows);
    expect(text.split('\n')[0]).toMatch(
      /^metric\s+p50\s+p90\s+p99\s+floor \/ peer\s+ratio\s+target\s+met\?$/,
    );
    expect(text).toContain('floor 1.00 ms');
    expect(text).toContain('2.00×');
    expect(text).toContain('NO');
    const md = markdownReport(report, machineInfo(), 'quick');
    expect(md).toContain('| cyrnel | 2.00 ms | 3.00 ms | 3.00 ms | floor 1.00 ms | 2.00× | ≤ 1.5× | NO |');
    expect(md).toContain('- ≤ 1.5× — cyrnel: 2.00× (2.00 ms) → **missed**');
    expect(md).toContain('- **peer**: cannot start');
    expect(md).toMatch(
      /Speed at start: a fixed loop of 50 million steps \d+(\.\d)? ms; the first touch of a fresh 4 KiB page \d+(\.\d+)? µs/,
    );
  });
});
