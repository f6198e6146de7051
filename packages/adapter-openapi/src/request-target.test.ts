import { describe, expect, it } from 'vitest';
import { requestTarget } from './request-target';

describe('requestTarget', () => {
  it('does encode dots of value-made dot segments and nothing else', () => {
    const target = (template: string, path: string, search = '') =>
      requestTarget({ basePath: '/v1/', template, path, search });
    expect(target('/a/{x}/{y}', '/a/../.', '?q=1')).toBe('/v1/a/%2E%2E/%2E?q=1');
    expect(target('/a/{x}', '/a/%2e%2E')).toBe('/v1/a/%2E%2E');
    expect(target('/a/{x}{y}', '/a/..')).toBe('/v1/a/%2E%2E');
    expect(target('/a/../b/{x}', '/a/../b/c.d')).toBe('/v1/a/../b/c.d');
  });

  it('does percent-encode template characters a path cannot carry, like URL does', () => {
    expect(requestTarget({ basePath: '/', template: '/café/{id}', path: '/café/1 2', search: '' })).toBe(
      '/caf%C3%A9/1%202',
    );
    expect(requestTarget({ basePath: '/base', template: '/x', path: '/x', search: '' })).toBe('/base/x');
  });
});
