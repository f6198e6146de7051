import { afterEach, describe, expect, it } from 'vitest';
import { typesSelection } from '../environments/types-selection';
import { createSchemaChecker, type SchemaChecker } from './schema-checker';

const checkers: SchemaChecker[] = [];
afterEach(async () => {
  await Promise.all(checkers.splice(0).map((c) => c.close()));
});

const shared = {
  user: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] },
  repo: {
    type: 'object',
    properties: {
      owner: { $ref: '#/$defs/user' },
      forks: { type: 'array', items: { $ref: '#/$defs/repo' } },
    },
  },
};

describe('shared schemas in the checker', () => {
  it('resolves #/$defs/<name> against the shared schemas, sent once per key and worker', async () => {
    const checker = createSchemaChecker({ workers: 1 });
    checkers.push(checker);
    let reads = 0;
    const sharedSchemas = {
      key: 'svc:hash1',
      schemas: async () => {
        reads++;
        return shared;
      },
    };
    const toolA = { type: 'object', properties: { repo: { $ref: '#/$defs/repo' } } };
    const toolB = { $ref: '#/$defs/user' };
    await checker.check({
      field: 'parameters',
      schema: toolA,
      value: { repo: { owner: { login: 'a' } } },
      shared: sharedSchemas,
    });
    await expect(
      checker.check({
        field: 'parameters',
        schema: toolA,
        value: { repo: { forks: [{ owner: {} }] } },
        shared: sharedSchemas,
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', details: [{ path: '/repo/forks/0/owner' }] });
    await expect(
      checker.check({ field: 'parameters', schema: toolB, value: { login: 1 }, shared: sharedSchemas }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect(reads).toBe(1);
  });

  it("keeps a tool schema's own $defs ahead of the shared ones", async () => {
    const checker = createSchemaChecker({ workers: 1 });
    checkers.push(checker);
    const schema = { $ref: '#/$defs/user', $defs: { user: { type: 'string' } } };
    await expect(
      checker.check({ field: 'parameters', schema, value: 'me', shared: { key: 'k', schemas: shared } }),
    ).resolves.toBeUndefined();
  });
});

describe('typesSelection', () => {
  it('reads lists and comma-separated names, and names nothing as the whole catalog', () => {
    expect(typesSelection(undefined)).toBeUndefined();
    expect(typesSelection({ services: '', tools: [] })).toBeUndefined();
    const selection = typesSelection({ services: 'b,a', tools: ['gh.issues_get'] });
    expect(selection?.key).toBe('s=a,b;t=gh.issues_get');
    expect(selection?.has('a', 'x')).toBe(true);
    expect(selection?.has('gh', 'issues_get')).toBe(true);
    expect(selection?.has('gh', 'other')).toBe(false);
    expect(selection?.unknownServices(['a'])).toEqual(['b']);
    expect(selection?.unknownTools(new Set())).toEqual(['gh.issues_get']);
  });

  it('refuses malformed tool names', () => {
    expect(() => typesSelection({ tools: 'nodot' })).toThrow(/<serviceId>.<toolId>: nodot/);
  });
});
