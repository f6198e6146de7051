import { describe, expect, it } from 'vitest';
import { generateDefinition } from './generate-definition';
import { operationKeywords } from './operation-keywords';

describe('operationKeywords', () => {
  it('gives the method, the path segments without braces and the tags, each once', () => {
    expect(
      operationKeywords('post', '/repos/{owner}/{repo}/issues', ['issues', 7, 'Issue tracking']),
    ).toEqual(['post', 'repos', 'owner', 'repo', 'issues', 'Issue tracking']);
    expect(operationKeywords('get', '/uploads?convert={convert}', undefined)).toEqual([
      'get',
      'uploads',
      'convert',
    ]);
  });

  it('stays within the bounds the host accepts', () => {
    const tags = Array.from({ length: 150 }, (_, i) => `tag${i}-${'x'.repeat(300)}`);
    const keywords = operationKeywords('get', '/', tags);
    expect(keywords).toHaveLength(100);
    expect(keywords.every((word) => word.length <= 200)).toBe(true);
  });

  it('fills every tool of a generated definition', () => {
    const definition = generateDefinition(
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Pets', version: '1' },
        paths: { '/pets/{petId}': { delete: { operationId: 'deletePet', tags: ['pets'], responses: {} } } },
      }),
    );
    expect(definition.tools[0]?.keywords).toEqual(['delete', 'pets', 'petId']);
  });
});
