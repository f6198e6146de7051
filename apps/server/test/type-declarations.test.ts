import { describe, expect, it } from 'vitest';
import { manyToolsSpec, useServer } from './helpers';

describe('the type declarations of the catalog', () => {
  const { api } = useServer();

  it('renders the type declarations once per catalog revision and follows a change', async () => {
    const installed = await api('POST', '/services', {
      id: 'things',
      adapter: 'openapi',
      definition: JSON.stringify(manyToolsSpec(2000)),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    const first = await api('GET', '/environment/types');
    expect(first.status).toBe(200);
    expect(first.text).toContain('listThings1999');
    const again = await api('GET', '/environment/types');
    expect(again.text).toBe(first.text);
    const disabled = await api('POST', '/tools/things/listThings1999/enabled', { enabled: false });
    expect(disabled.status).toBe(200);
    const after = await api('GET', '/environment/types');
    expect(after.text).not.toContain('listThings1999');
    expect(after.text).toContain('listThings1998');
    const discovered = await api('POST', '/processes', {
      code: `cyrnel.output({ ids: (await cyrnel.discover.tools({ query: 'listThings1999' })).map((t) => t.toolId) });`,
      wait: true,
    });
    expect(discovered.body.output).toEqual({ ids: [] });
  });
});
