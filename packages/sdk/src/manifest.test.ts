import { describe, expect, it } from 'vitest';
import { isModuleDefinition, isModuleManifest, validateModuleManifest } from './manifest';

const valid = {
  id: 'my-adapter',
  name: 'My adapter',
  description: 'Talks to things',
  type: 'adapter',
  main: 'index.js',
  version: '1.2.3-beta.1+build.5',
  engines: { cyrnel: '^0.1.0' },
};

describe('validateModuleManifest', () => {
  it('accepts a complete manifest', () => {
    expect(validateModuleManifest(valid)).toEqual([]);
    expect(isModuleManifest(valid)).toBe(true);
  });

  it('names every bad field', () => {
    const problems = validateModuleManifest({
      id: '1bad',
      name: 3,
      type: 'plugin',
      main: '',
      version: '1.0',
      engines: { cyrnel: 1 },
    });
    expect(problems).toEqual([
      expect.stringContaining('id must match'),
      'name must be a string',
      'description must be a string',
      'type must be one of adapter, environment',
      'main must be a non-empty string',
      'version must be a semantic version (e.g. 1.0.0)',
      'engines.cyrnel must be a semver range string',
    ]);
    expect(isModuleManifest({ ...valid, type: 'plugin' })).toBe(false);
  });

  it('refuses values that are not objects', () => {
    for (const value of [null, 'x', [valid], 1]) {
      expect(validateModuleManifest(value)).toEqual(['manifest must be a JSON object']);
    }
  });

  it('allows dashes in module ids but not leading digits', () => {
    expect(isModuleManifest({ ...valid, id: 'typescript-ivm' })).toBe(true);
    expect(isModuleManifest({ ...valid, id: '9lives' })).toBe(false);
  });
});

describe('isModuleDefinition', () => {
  it('requires an instantiate function', () => {
    expect(isModuleDefinition({ configSchema: {}, secretsSchema: {}, instantiate: () => ({}) })).toBe(true);
    expect(isModuleDefinition({ configSchema: {} })).toBe(false);
    expect(isModuleDefinition(null)).toBe(false);
  });
});
