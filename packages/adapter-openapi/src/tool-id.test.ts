import { isValidIdentifier } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { createToolIdAllocator, toolIdCandidate } from './tool-id';

describe('toolIdCandidate', () => {
  it('does replace, collapse and trim characters outside [A-Za-z0-9_$]', () => {
    expect(toolIdCandidate('meta/root', 'get', '/')).toBe('meta_root');
    expect(toolIdCandidate('--a..b--', 'get', '/')).toBe('a_b');
    expect(toolIdCandidate('créer-élément', 'post', '/x')).toBe('cr_er_l_ment');
    expect(toolIdCandidate('$get', 'get', '/')).toBe('$get');
  });

  it('does prefix a leading digit and suffix reserved words', () => {
    expect(toolIdCandidate('2fa', 'get', '/')).toBe('_2fa');
    expect(toolIdCandidate('delete', 'delete', '/x')).toBe('delete_');
    expect(toolIdCandidate('import', 'post', '/x')).toBe('import_');
    expect(toolIdCandidate('__proto__', 'get', '/')).toBe('proto');
  });

  it('does derive from method and path when there is no usable operationId', () => {
    expect(toolIdCandidate(undefined, 'get', '/pets/{petId}')).toBe('get_pets_petId');
    expect(toolIdCandidate('日本', 'post', '/jobs/')).toBe('post_jobs');
    expect(toolIdCandidate('', 'get', '/')).toBe('get');
  });
});

describe('createToolIdAllocator', () => {
  it('does suffix repeats compared case-insensitively, in call order', () => {
    const allocator = createToolIdAllocator();
    const ids = ['get_jobs', 'get_jobs', 'Get_Jobs', 'get_jobs_2', 'x'].map((c) => allocator.allocate(c));
    expect(ids).toEqual(['get_jobs', 'get_jobs_2', 'Get_Jobs_3', 'get_jobs_2_2', 'x']);
    expect(ids.every((id) => isValidIdentifier(id))).toBe(true);
  });
});
