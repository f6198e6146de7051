import { expect, it } from 'vitest';
import type { CatalogStorage } from '../index';
import { newService, newTool } from './catalog-fixtures';

const LATER = '2026-01-02T00:00:00.000Z';
const SHAPE = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
const WIDER = { type: 'object', properties: { sum: { type: 'number' }, note: { type: 'string' } } };

/** What observed output shapes need of a catalog: a conditional write per tool, and a switch per service. */
export function catalogObservedCases(catalog: () => CatalogStorage): void {
  it('writes a learned shape only over the one the writer read, and only while its service observes', async () => {
    await catalog().insertService(newService('svc', { tools: [newTool('add', { outputSchema: {} })] }));
    expect((await catalog().getService('svc'))?.observeOutputs).toBe(true);
    expect((await catalog().getTool('svc', 'add'))?.observedOutput).toBeNull();
    expect(await catalog().updateObservedOutput('svc', 'add', null, SHAPE)).toBe(true);
    expect((await catalog().getTool('svc', 'add'))?.observedOutput).toEqual(SHAPE);
    // A second host that read before the first wrote: refused, and what is stored stays.
    expect(await catalog().updateObservedOutput('svc', 'add', null, WIDER)).toBe(false);
    expect(await catalog().updateObservedOutput('svc', 'add', WIDER, WIDER)).toBe(false);
    const read = (await catalog().getTool('svc', 'add'))?.observedOutput ?? null;
    expect(await catalog().updateObservedOutput('svc', 'add', read, WIDER)).toBe(true);
    expect((await catalog().listServiceTools('svc')).map((tool) => tool.observedOutput)).toEqual([WIDER]);
    expect(await catalog().updateObservedOutput('svc', 'gone', null, SHAPE)).toBe(false);
    expect(await catalog().updateObservedOutput('nope', 'add', null, SHAPE)).toBe(false);
  });

  it('forgets every learned shape when the switch turns, refuses writes while off, and leaves the service undated', async () => {
    await catalog().insertService(
      newService('svc', { tools: [newTool('a', { outputSchema: {} }), newTool('b', { outputSchema: {} })] }),
    );
    await catalog().updateObservedOutput('svc', 'a', null, SHAPE);
    await catalog().updateObservedOutput('svc', 'b', null, SHAPE);
    const before = await catalog().getService('svc');
    expect(await catalog().setServiceObserveOutputs('svc', false)).toBe(true);
    expect(await catalog().setServiceObserveOutputs('nope', false)).toBe(false);
    const off = await catalog().getService('svc');
    expect(off?.observeOutputs).toBe(false);
    expect(off?.updatedAt).toBe(before?.updatedAt);
    expect((await catalog().listServiceTools('svc')).map((tool) => tool.observedOutput)).toEqual([
      null,
      null,
    ]);
    expect(await catalog().updateObservedOutput('svc', 'a', null, SHAPE)).toBe(false);
    expect((await catalog().getTool('svc', 'a'))?.observedOutput).toBeNull();
    expect(await catalog().setServiceObserveOutputs('svc', true)).toBe(true);
    expect((await catalog().getService('svc'))?.observeOutputs).toBe(true);
    expect((await catalog().getTool('svc', 'a'))?.observedOutput).toBeNull();
    expect(await catalog().updateObservedOutput('svc', 'a', null, SHAPE)).toBe(true);
  });

  it('keeps the shapes of the tools a replaced definition keeps, and only theirs', async () => {
    await catalog().insertService(
      newService('svc', { tools: [newTool('a', { outputSchema: {} }), newTool('b', { outputSchema: {} })] }),
    );
    await catalog().updateObservedOutput('svc', 'a', null, SHAPE);
    await catalog().updateObservedOutput('svc', 'b', null, WIDER);
    await catalog().replaceServiceDefinition(
      'svc',
      {
        ...newService('svc'),
        tools: [newTool('a', { outputSchema: {} }), newTool('c', { outputSchema: {} })],
      },
      false,
      LATER,
    );
    expect((await catalog().listServiceTools('svc')).map((tool) => [tool.id, tool.observedOutput])).toEqual([
      ['a', SHAPE],
      ['c', null],
    ]);
    await catalog().replaceServiceDefinition(
      'svc',
      { ...newService('svc'), tools: [newTool('b')] },
      false,
      LATER,
    );
    expect((await catalog().getTool('svc', 'b'))?.observedOutput).toBeNull();
  });
}
