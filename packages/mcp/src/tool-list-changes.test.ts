import { describe, expect, it } from 'vitest';
import { watchToolList } from './tool-list-changes';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('watchToolList', () => {
  it('tells every listener of a new version, once per change, and stops looking without listeners', async () => {
    let version = 'a';
    let looks = 0;
    const watch = watchToolList(() => {
      looks++;
      return version;
    }, 5);
    const told: string[] = [];
    const stopFirst = watch.subscribe(() => told.push('first'));
    watch.subscribe(() => told.push('second'));
    await tick(30);
    expect(told).toEqual([]);
    version = 'b';
    while (told.length < 2) await tick(5);
    await tick(30);
    expect(told.sort()).toEqual(['first', 'second']);
    stopFirst();
    watch.close();
    const after = looks;
    await tick(30);
    expect(looks).toBe(after);
  });
});
