import { expect, it } from 'vitest';
import type { CatalogStorage, NewTool } from '../index';
import { newService, newTool } from './catalog-fixtures';

const LATER = '2026-01-02T00:00:00.000Z';

/** What the policies need of a catalog: each tool's annotations, and each service's policy rules. */
export function catalogPolicyCases(catalog: () => CatalogStorage): void {
  it("keeps each tool's annotations (only the four flags, only booleans) and lists them", async () => {
    await catalog().insertService(
      newService('svc', {
        enabled: true,
        tools: [
          newTool('repos_delete', { annotations: { destructive: true, idempotent: true } }),
          newTool('repos_get', {
            annotations: {
              readOnly: true,
              openWorld: 'yes',
              other: true,
            } as unknown as NewTool['annotations'],
          }),
          newTool('plain'),
        ],
      }),
    );
    const listed = await catalog().listTools({ serviceId: 'svc' });
    expect(listed.map((tool) => [tool.id, tool.annotations])).toEqual([
      ['plain', {}],
      ['repos_delete', { destructive: true, idempotent: true }],
      ['repos_get', { readOnly: true }],
    ]);
    expect((await catalog().getTool('svc', 'repos_delete'))?.annotations).toEqual({
      destructive: true,
      idempotent: true,
    });
    const [found] = await catalog().searchTools({ text: 'repos_get', adapters: ['openapi'], limit: 1 });
    expect(found?.annotations).toBeDefined();
  });

  it("keeps a service's policy across definition updates and deletes it with the service", async () => {
    await catalog().insertService(newService('svc'));
    expect(await catalog().getServicePolicy('svc')).toEqual({});
    expect(await catalog().getServicePolicy('nope')).toBeUndefined();
    const policy = {
      default: 'ask' as const,
      byAnnotation: { readOnly: 'allow' as const, destructive: 'block' as const },
      tools: { issues_create: 'allow' as const },
      labels: { issues_list: ['untrusted' as const] },
      dataFlow: 'block' as const,
    };
    expect(await catalog().setServicePolicy('svc', policy, LATER)).toBe(true);
    expect(await catalog().setServicePolicy('nope', policy, LATER)).toBe(false);
    expect(await catalog().getServicePolicy('svc')).toEqual(policy);
    await catalog().replaceServiceDefinition(
      'svc',
      { ...newService('svc'), tools: [newTool('x')] },
      true,
      LATER,
    );
    expect(await catalog().getServicePolicy('svc')).toEqual(policy);
    await catalog().setServicePolicy('svc', { default: 'allow' }, LATER);
    expect(await catalog().getServicePolicy('svc')).toEqual({ default: 'allow' });
    await catalog().deleteService('svc');
    await catalog().insertService(newService('svc'));
    expect(await catalog().getServicePolicy('svc')).toEqual({});
  });
}
