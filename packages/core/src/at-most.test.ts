import { describe, expect, it } from 'vitest';
import { atMost } from './at-most';

describe('atMost', () => {
  it("answers the task's value when it comes first", async () => {
    expect(await atMost(Promise.resolve(7), 60_000, null)).toBe(7);
  });

  it('answers the fallback when the task takes longer than the bound', async () => {
    const never = new Promise<number>(() => {});
    expect(await atMost(never, 10, 'late')).toBe('late');
  });

  it("leaves a task's rejection to the caller", async () => {
    await expect(atMost(Promise.reject(new Error('down')), 60_000, null)).rejects.toThrow('down');
  });
});
