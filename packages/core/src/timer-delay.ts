import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';

/** `ms` made safe for `setTimeout`: a huge delay waits as long as a timer can instead of firing at once. */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}
