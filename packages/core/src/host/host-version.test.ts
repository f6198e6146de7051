import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOST_VERSION } from './create-host';

describe('HOST_VERSION', () => {
  it('is the version in package.json (the one changesets bumps)', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(HOST_VERSION).toBe(version);
  });
});
