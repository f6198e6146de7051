import { describe, expect, it } from 'vitest';
import { sharedSchemaClosure, sharedSchemaName, sharedSchemaRef, withSharedSchemas } from './shared-schemas';

const schemas = {
  repo: { type: 'object', properties: { owner: { $ref: '#/$defs/user' } } },
  user: { type: 'object', properties: { repos: { type: 'array', items: { $ref: '#/$defs/repo' } } } },
  unrelated: { type: 'string' },
};

describe('shared schemas', () => {
  it('names and parses #/$defs/<name> references', () => {
    expect(sharedSchemaRef('a.b-c_1')).toBe('#/$defs/a.b-c_1');
    expect(sharedSchemaName('#/$defs/a.b-c_1')).toBe('a.b-c_1');
    expect(sharedSchemaName('#/definitions/a')).toBeUndefined();
    expect(sharedSchemaName('#/$defs/a/b')).toBeUndefined();
  });

  it('finds the closure through shared schemas, recursion included, without copying', () => {
    const closure = sharedSchemaClosure({ properties: { r: { $ref: '#/$defs/repo' } } }, schemas);
    expect(Object.keys(closure)).toEqual(['repo', 'user']);
    expect(closure.repo).toBe(schemas.repo);
  });

  it("leaves the tool's own $defs and unknown names alone", () => {
    const own = {
      $defs: { repo: { type: 'null' } },
      $ref: '#/$defs/repo',
      anyOf: [{ $ref: '#/$defs/nope' }],
    };
    expect(sharedSchemaClosure(own, schemas)).toEqual({});
    expect(withSharedSchemas(own, schemas)).toBe(own);
  });

  it('makes a schema self-contained, its own entries winning', () => {
    const schema = { $ref: '#/$defs/repo', $defs: { extra: {} } };
    expect(withSharedSchemas(schema, schemas)).toEqual({
      $ref: '#/$defs/repo',
      $defs: { repo: schemas.repo, user: schemas.user, extra: {} },
    });
    expect(withSharedSchemas(schema, undefined)).toBe(schema);
  });
});
