import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { timerDelay } from './timer-delay';

describe('timerDelay', () => {
  it('keeps delays a timer honours and clamps the rest into range', () => {
    expect(timerDelay(30_000)).toBe(30_000);
    expect(timerDelay(MAX_TIMER_DELAY_MS)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelay(MAX_TIMER_DELAY_MS + 1)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelay(Number.MAX_SAFE_INTEGER)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelay(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelay(-5)).toBe(0);
    expect(timerDelay(Number.NaN)).toBe(0);
  });
});
