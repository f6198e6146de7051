import { describe, expect, it } from 'vitest';
import { sharedRenders } from './shared-renders';

/** A render that ends when the test says, numbered in the order they started. */
function controlledRender() {
  const ends: (() => void)[] = [];
  let started = 0;
  const render = () => {
    const number = ++started;
    return new Promise<number>((resolve) => ends.push(() => resolve(number)));
  };
  const endNext = async () => {
    while (ends.length === 0) await new Promise((resolve) => setImmediate(resolve));
    ends.shift()?.();
  };
  return { render, endNext, started: () => started };
}

describe('sharedRenders', () => {
  it('gives the callers that ask during a render the next one, started after they asked', async () => {
    const { render, endNext, started } = controlledRender();
    const text = sharedRenders(render);
    const first = text();
    const during = Array.from({ length: 1000 }, () => text());
    await endNext();
    await expect(first).resolves.toBe(1);
    await endNext();
    await expect(Promise.all(during)).resolves.toEqual(Array.from({ length: 1000 }, () => 2));
    expect(started()).toBe(2);
    // Quiet again: the next caller starts a render of its own.
    const later = text();
    await endNext();
    await expect(later).resolves.toBe(3);
  });

  it('passes a failed render on to its callers only; the next render is a new try', async () => {
    let renders = 0;
    const text = sharedRenders(async () => {
      if (++renders === 1) throw new Error('collect failed');
      return 'ok';
    });
    const failed = text();
    const after = text();
    await expect(failed).rejects.toThrow('collect failed');
    await expect(after).resolves.toBe('ok');
  });

  it('with reuseMs, answers a render that started that recently, then renders again', async () => {
    let renders = 0;
    const text = sharedRenders(async () => ++renders, { reuseMs: 60_000 });
    await expect(text()).resolves.toBe(1);
    await expect(Promise.all([text(), text()])).resolves.toEqual([1, 1]);
    const fresh = sharedRenders(async () => ++renders, { reuseMs: 0 });
    await expect(fresh()).resolves.toBe(2);
    await expect(fresh()).resolves.toBe(3);
  });
});
