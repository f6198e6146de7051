import { describe, expect, it } from 'vitest';
import { writeTarget } from './catalog-revision';

describe('writeTarget', () => {
  it('names the service or module every write of the catalog port touches', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(writeTarget('setConfig', [{ kind: 'service', id: 'github' }, {}, at])).toEqual({
      service: 'github',
    });
    expect(writeTarget('setSecrets', [{ kind: 'module', id: 'openapi' }, {}, at])).toEqual({
      module: 'openapi',
    });
    expect(writeTarget('insertService', [{ id: 'slack', tools: [] }])).toEqual({ service: 'slack' });
    expect(writeTarget('insertModule', [{ id: 'mcp' }])).toEqual({ module: 'mcp' });
    expect(writeTarget('updateModule', ['mcp', { updatedAt: at }])).toEqual({ module: 'mcp' });
    for (const method of ['replaceServiceDefinition', 'setServiceEnabled', 'deleteService', 'setToolEnabled'])
      expect(writeTarget(method, ['github', true, at])).toEqual({ service: 'github' });
  });

  it('answers nothing for writes it does not know or arguments of another shape (readers look at everything)', () => {
    expect(writeTarget('setSomethingNew', ['x'])).toBeUndefined();
    expect(writeTarget('setConfig', [undefined])).toBeUndefined();
    expect(writeTarget('deleteService', [42])).toBeUndefined();
  });
});
