import { jsonText } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { createMemoryCatalogStorage } from '../catalog/memory-catalog-storage';
import { silentLogger } from '../scoped-logger';
import { watchCatalog } from '../several-hosts/catalog-revision';
import { newService, newTool } from '../testing/catalog-fixtures';
import { OBSERVED_LIMITS } from './observed-limits';
import { createOutputObserver } from './output-observer';
import { readShape } from './read-shape';

/** A catalog with service `svc`: `free` declares no output, `typed` does. */
async function catalogWithTools() {
  const storage = createMemoryCatalogStorage();
  await storage.insertService(
    newService('svc', {
      tools: [
        newTool('free', { outputSchema: {} }),
        newTool('typed', { outputSchema: { type: 'object', properties: { n: { type: 'number' } } } }),
      ],
    }),
  );
  return storage;
}

/** One host's observer on a shared storage: its own view of the revision, as a host has. */
function host(storage: ReturnType<typeof createMemoryCatalogStorage>) {
  const watched = watchCatalog(storage);
  const observer = createOutputObserver({
    catalog: watched.catalog,
    state: () => String(watched.revision()),
    logger: silentLogger,
  });
  return { observer, writes: () => watched.revision() };
}

describe('createOutputObserver', () => {
  it('learns the shape of a tool without an output schema, writing only when it changes', async () => {
    const storage = await catalogWithTools();
    const { observer, writes } = host(storage);
    for (let call = 0; call < 50; call++) observer.observe('svc', 'free', { sum: call, label: `v${call}` });
    await observer.settled();
    expect((await storage.getTool('svc', 'free'))?.observedOutput).toEqual({
      type: 'object',
      properties: { sum: { type: 'number' }, label: { type: 'string' } },
      required: ['sum', 'label'],
    });
    expect(writes()).toBe(1);
    // Calm after so many unchanged results: one result in eight is looked at.
    for (let call = 0; call < 8; call++) observer.observe('svc', 'free', { sum: 1, label: null });
    await observer.settled();
    expect(writes()).toBe(2);
    for (let call = 0; call < 100; call++) observer.observe('svc', 'free', { sum: 2, label: 'x' });
    await observer.settled();
    expect(writes()).toBe(2);
  });

  it('leaves tools that declare their output, JSON text and services that do not observe alone', async () => {
    const storage = await catalogWithTools();
    const { observer, writes } = host(storage);
    observer.observe('svc', 'typed', { n: 1 });
    observer.observe('svc', 'free', jsonText('{"big":true}'));
    observer.observe('svc', 'missing', { n: 1 });
    await observer.settled();
    expect(writes()).toBe(0);
    await storage.setServiceObserveOutputs('svc', false);
    observer.observe('svc', 'free', { n: 1 });
    await observer.settled();
    expect(writes()).toBe(0);
    expect((await storage.getTool('svc', 'free'))?.observedOutput).toBeNull();
  });

  it('merges into what another host stored rather than over it', async () => {
    const storage = await catalogWithTools();
    const first = host(storage);
    const second = host(storage);
    first.observer.observe('svc', 'free', { a: 1 });
    second.observer.observe('svc', 'free', { a: 1 });
    await Promise.all([first.observer.settled(), second.observer.settled()]);
    // Each read the other's write only when its conditional write was refused.
    first.observer.observe('svc', 'free', { a: 1, fromFirst: 'x' });
    await first.observer.settled();
    second.observer.observe('svc', 'free', { a: 1, fromSecond: true });
    await second.observer.settled();
    expect((await storage.getTool('svc', 'free'))?.observedOutput).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, fromFirst: { type: 'string' }, fromSecond: { type: 'boolean' } },
      required: ['a'],
    });
  });
});

describe('readShape', () => {
  it('reads back what it writes and refuses anything that could carry a value', () => {
    const shape = {
      type: 'object',
      properties: { id: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['id'],
    };
    expect(readShape(shape, OBSERVED_LIMITS)).toEqual(shape);
    expect(
      readShape(
        { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        OBSERVED_LIMITS,
      ),
    ).toEqual({
      type: 'object',
      additionalProperties: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    });
    for (const bad of [
      { enum: ['hunter2'] },
      { const: 'hunter2' },
      { type: 'string', format: 'email' },
      { type: 'string', examples: ['hunter2'] },
      { type: 'object', properties: { 'alice@example.com': { type: 'string' } } },
      { type: 'object', properties: {}, required: ['hunter2'] },
      { anyOf: [{ type: 'string' }, { type: 'string' }] },
      'string',
    ])
      expect(readShape(bad, OBSERVED_LIMITS)).toBeUndefined();
    let deep: unknown = { type: 'string' };
    for (let level = 0; level < 20; level++) deep = { type: 'array', items: deep };
    expect(readShape(deep, OBSERVED_LIMITS)).toBeUndefined();
  });
});
