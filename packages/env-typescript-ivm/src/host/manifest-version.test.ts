import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { manifest } from './typescript-ivm-module';

describe('manifest', () => {
  it('carries the version in package.json (the one changesets bumps)', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(manifest.version).toBe(version);
  });
});
