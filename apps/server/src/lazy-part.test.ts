import { isCyrnelError } from '@cyrnel/core';
import { describe, expect, it } from 'vitest';
import { lazyPart } from './lazy-part';

describe('lazyPart', () => {
  it('loads on the first use only, once for every caller', async () => {
    let loads = 0;
    const part = lazyPart('the help text', async () => {
      loads++;
      return import('./help-text');
    });
    expect(part.loaded()).toBeUndefined();
    expect(loads).toBe(0);
    const [first, second] = await Promise.all([part.get(), part.get()]);
    expect(loads).toBe(1);
    expect(first).toBe(second);
    expect(first.helpText()).toContain('--port');
    expect(await part.loaded()).toBe(first);
  });

  it('answers a 500 naming the part when the load fails, tells why, and tries again on the next use', async () => {
    let loads = 0;
    const causes: unknown[] = [];
    const part = lazyPart(
      'the missing endpoint',
      async () => {
        loads++;
        // A module that is not there, as in a broken install.
        return import(`./no-such-module-${loads}.js`);
      },
      (error) => causes.push(error),
    );
    const failure = await part.get().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isCyrnelError(failure)).toBe(true);
    expect(failure).toMatchObject({
      status: 500,
      reason: 'internal',
      message: 'the missing endpoint could not be loaded (see the server log)',
    });
    expect(causes).toHaveLength(1);
    expect((causes[0] as Error).message).toContain('no-such-module-1');
    expect(part.loaded()).toBeUndefined();
    await expect(part.get()).rejects.toMatchObject({ reason: 'internal' });
    expect(loads).toBe(2);
  });
});
