import { efficiencySummary, type ProcessMetrics } from '@cyrnel/sdk/api';

/** What a ratio of bytes read from tools to bytes returned to the model says about a run. */
export type RatioVerdict = 'pays off' | 'neutral' | 'direct calls would be as cheap' | 'nothing to compare';

/**
 * The verdict on an efficiency ratio: 10 and more "pays off" (most of what the code read stayed
 * out of the model's context), at most 1 "direct calls would be as cheap", neutral between, and
 * "nothing to compare" without a ratio (nothing read or nothing returned).
 *
 * @example
 * ```ts
 * ratioVerdict(6.71); // 'neutral'
 * ```
 */
export function ratioVerdict(ratio: number | null): RatioVerdict {
  if (ratio === null || !Number.isFinite(ratio)) return 'nothing to compare';
  if (ratio >= 10) return 'pays off';
  if (ratio <= 1) return 'direct calls would be as cheap';
  return 'neutral';
}

/**
 * Milliseconds for people: `0.4 ms`, `843 ms`, `2.1 s`, `3 min 5 s`; `—` for none.
 *
 * @example
 * ```ts
 * formatMs(843.2); // '843 ms'
 * ```
 */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * The SDK's sentence on a run's metrics, starting with a capital: "This run read 463 B from tools
 * in 2 calls and returned 69 B to the model (6.71× less)".
 */
export function efficiencySentence(metrics: ProcessMetrics): string {
  const sentence = efficiencySummary(metrics);
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
