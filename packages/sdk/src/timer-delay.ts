/**
 * The longest delay Node's timers honour. `setTimeout` turns anything above it (a signed 32-bit
 * millisecond count, about 24.8 days) into 1 ms, so an unclamped huge deadline fires at once.
 * Every timeout setting and deadline is capped at it.
 *
 * @example
 * ```ts
 * setTimeout(done, Math.min(requestedMs, MAX_TIMER_DELAY_MS));
 * ```
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;
