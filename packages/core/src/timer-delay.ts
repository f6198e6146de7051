/**
 * The longest delay Node's timers honour. `setTimeout` turns anything above it (a signed 32-bit
 * millisecond count, about 24.8 days) into 1 ms, so an unclamped huge deadline fires at once.
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** `ms` made safe for `setTimeout`: a huge delay waits as long as a timer can instead of firing at once. */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}
