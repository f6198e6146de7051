import { describe, expect, it } from 'vitest';
import { isValidRange, satisfiesRange } from './semver-range';

describe('satisfiesRange', () => {
  it.each([
    ['1.2.3', '^1.2.0', true],
    ['2.0.0', '^1.2.0', false],
    ['0.2.5', '^0.2.3', true],
    ['0.3.0', '^0.2.3', false],
    ['0.0.4', '^0.0.3', false],
    ['0.1.0', '^0.1', true],
    ['1.2.9', '~1.2.3', true],
    ['1.3.0', '~1.2.3', false],
    ['1.9.0', '~1', true],
    ['1.0.0', '>=1.0.0', true],
    ['0.9.9', '>=1.0.0', false],
    ['1.0.0', '<1.0.0', false],
    ['1.0.0-rc.1', '<1.0.0', true],
    ['1.2.9', '<=1.2', true],
    ['1.3.0', '<=1.2', false],
    ['1.3.0', '>1.2', true],
    ['1.2.5', '>1.2', false],
    ['1.2.3', '=1.2.3', true],
    ['1.2.3', '1.2.3', true],
    ['1.5.0', '1.x', true],
    ['2.0.0', '1.x', false],
    ['1.2.7', '1.2.x', true],
    ['9.9.9', '*', true],
    ['9.9.9', '', true],
    ['1.5.0', '>=1.0.0 <2.0.0', true],
    ['2.5.0', '>=1.0.0 <2.0.0', false],
    ['2.5.0', '^1.0.0 || ^2.0.0', true],
    ['1.5.0', '1.0.0 - 2.0.0', true],
    ['2.0.1', '1.0.0 - 2.0.0', false],
    ['1.0.0-beta.2', '>=1.0.0-beta.10', false],
    ['1.0.0-beta.11', '>=1.0.0-beta.10', true],
    ['1.0.0', '>= 1.0.0', true],
    // npm's engines semantics: a prerelease host takes part in ranges naming other tuples.
    ['0.2.0-rc.1', '>=0.1.0', true],
    ['0.2.0-rc.1', '^0.1.0', false],
    ['1.2.3+build.5', '1.2.3', true],
    ['v1.2.3', '^1', true],
    ['1.2.3', '~> 1.2', true],
  ])('%s satisfies "%s": %s', (version, range, expected) => {
    expect(satisfiesRange(version, range)).toBe(expected);
  });

  it('refuses malformed ranges and versions', () => {
    expect(isValidRange('^1.x.3-')).toBe(false);
    expect(isValidRange('hello')).toBe(false);
    expect(isValidRange('>=1 <2 || 3.x')).toBe(true);
    expect(satisfiesRange('not-a-version', '*')).toBe(false);
    expect(satisfiesRange('1.0.0', 'banana')).toBe(false);
  });
});
