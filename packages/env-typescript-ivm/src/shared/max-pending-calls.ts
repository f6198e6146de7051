/**
 * Default bound on one execution's pending host calls and timers: the child enforces it, the
 * runtime docs the host renders state it.
 */
export const MAX_PENDING_CALLS = 5000;
