import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPausableTimer } from './pausable-timer';

describe('createPausableTimer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires once its clock has run the whole time, held time not counted', () => {
    const fire = vi.fn();
    const timer = createPausableTimer(300, fire);
    vi.advanceTimersByTime(200);
    timer.hold(true);
    vi.advanceTimersByTime(10_000);
    expect(fire).not.toHaveBeenCalled();
    expect(timer.elapsed()).toBe(200);
    timer.hold(false);
    vi.advanceTimersByTime(99);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
    expect(timer.elapsed()).toBe(300);
  });

  it('is held and released several times, and treats repeated holds as one state', () => {
    const fire = vi.fn();
    const timer = createPausableTimer(100, fire);
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(30);
      timer.hold(true);
      timer.hold(true);
      vi.advanceTimersByTime(1000);
      timer.hold(false);
      timer.hold(false);
    }
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(10);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('never fires once cleared, held or not', () => {
    const fire = vi.fn();
    const timer = createPausableTimer(50, fire);
    timer.hold(true);
    timer.clear();
    timer.hold(false);
    vi.advanceTimersByTime(1000);
    expect(fire).not.toHaveBeenCalled();
  });
});
