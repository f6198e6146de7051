import { describe, expect, it } from 'vitest';
import { postgresTests } from './postgres-tests';

describe('postgresTests', () => {
  it('runs the PostgreSQL suites unless told to skip them', () => {
    for (const value of [undefined, '', 'run'])
      expect(postgresTests(value)).toEqual({ enabled: true, note: '' });
    expect(postgresTests('skip')).toMatchObject({
      enabled: false,
      note: expect.stringContaining('CYRNEL_TEST_POSTGRES=skip'),
    });
  });

  it('refuses any other value, so a typo cannot leave them out unnoticed', () => {
    expect(() => postgresTests('skpi')).toThrow('CYRNEL_TEST_POSTGRES must be "run" or "skip", not "skpi"');
  });
});
