import { describe, expect, it } from 'vitest';
import { parseMetrics, ratePerSecond, sumBy, total } from './prometheus-text';

const TEXT = `# HELP cyrnel_processes This host's runs not finished
# TYPE cyrnel_processes gauge
cyrnel_processes{state="queued"} 0
cyrnel_processes{state="running"} 2
cyrnel_queue_depth 3
cyrnel_tool_calls_total{service="weather",tool="getForecast",outcome="ok"} 5
cyrnel_tool_calls_total{service="weather",tool="getForecast",outcome="upstream_failed"} 1
cyrnel_tool_calls_total{service="shop",tool="list",outcome="ok"} 9 1700000000000
odd{path="a \\"quoted\\" \\\\ back\\nline", empty=""} 1.5e3
cyrnel_process_run_seconds_bucket{le="+Inf",exit_state="success"} +Inf
nodejs_eventloop_lag_seconds NaN
not a sample line
broken{label="no end 4
broken2{label=unquoted} 4
broken3 four
`;

describe('the Prometheus text format, parsed in the browser', () => {
  const samples = parseMetrics(TEXT);

  it('reads names, labels and values, and skips comments and lines that do not parse', () => {
    expect(samples.map((sample) => sample.name)).toEqual([
      'cyrnel_processes',
      'cyrnel_processes',
      'cyrnel_queue_depth',
      'cyrnel_tool_calls_total',
      'cyrnel_tool_calls_total',
      'cyrnel_tool_calls_total',
      'odd',
      'cyrnel_process_run_seconds_bucket',
      'nodejs_eventloop_lag_seconds',
    ]);
    expect(samples[1]).toEqual({ name: 'cyrnel_processes', labels: { state: 'running' }, value: 2 });
    expect(samples[2]).toEqual({ name: 'cyrnel_queue_depth', labels: {}, value: 3 });
    // A timestamp after the value is not the value.
    expect(samples[5]?.value).toBe(9);
  });

  it('unescapes label values and reads exponents, infinities and NaN', () => {
    expect(samples[6]).toEqual({
      name: 'odd',
      labels: { path: 'a "quoted" \\ back\nline', empty: '' },
      value: 1500,
    });
    expect(samples[7]?.value).toBe(Number.POSITIVE_INFINITY);
    expect(samples[8]?.value).toBeNaN();
  });

  it('sums by labels, largest first, and totals a metric', () => {
    expect(sumBy(samples, 'cyrnel_tool_calls_total', ['service', 'tool'])).toEqual([
      { labels: { service: 'shop', tool: 'list' }, value: 9 },
      { labels: { service: 'weather', tool: 'getForecast' }, value: 6 },
    ]);
    expect(total(samples, 'cyrnel_processes')).toBe(2);
    expect(total(samples, 'cyrnel_missing')).toBeUndefined();
  });

  it('turns two scrapes of a counter into a rate, 0 after a reset', () => {
    expect(ratePerSecond(15, 5, 5)).toBe(2);
    expect(ratePerSecond(15, undefined, 5)).toBeUndefined();
    expect(ratePerSecond(2, 40, 5)).toBe(0);
    expect(ratePerSecond(2, 1, 0)).toBeUndefined();
  });
});
