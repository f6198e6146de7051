import type { ToolDocsInput } from '@cyrnel/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { generateToolDocs, generateTypes } from '../src';
import { resolveDistFile } from '../src/host/dist-file';
import { createRenderer, type Renderer } from '../src/host/renderer';
import { renderToolSignature } from '../src/type-rendering/tool-signature';
import { startEnvironment } from './recording-bindings';
import { explosive, tool } from './render-schemas';

const workerPath = resolveDistFile('render-worker.js');

const catalog = Array.from({ length: 450 }, (_, i) =>
  tool(`svc${i % 3}`, `op${i}`, {
    type: 'object',
    properties: { path: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } },
  }),
);

let renderer: Renderer | undefined;
afterEach(() => {
  renderer?.close();
  renderer = undefined;
});

describe('createRenderer', () => {
  it('renders in its worker exactly what the renderers give in-thread', async () => {
    renderer = createRenderer({ workerPath, timeoutMs: 60_000, partSize: 40 });
    expect(await renderer.types(catalog)).toBe(generateTypes(catalog));
    expect(await renderer.types([])).toBe(generateTypes([]));
    const one = catalog[7] as ToolDocsInput;
    expect(await renderer.toolDocs(one)).toBe(generateToolDocs(one));
    expect(await renderer.signature(one)).toBe(renderToolSignature(one));
  });

  it('renders a budget and the types asked for in its worker as in-thread, shared schemas sent once', async () => {
    renderer = createRenderer({ workerPath, timeoutMs: 60_000, partSize: 2 });
    const members = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`m${i}`, { $ref: '#/$defs/Leaf' }]),
    );
    const schemas = {
      Big: { type: 'object', properties: { ...members, next: { $ref: '#/$defs/Other' } } },
      Other: { type: 'object', properties: members },
      Leaf: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
      },
    };
    const tools = Array.from({ length: 5 }, (_, i) => ({
      ...tool('svc', `op${i}`, { type: 'object', properties: { body: { $ref: '#/$defs/Big' } } }),
      schemas,
    }));
    const options = {
      maxBytes: 512,
      types: ['svc.Other', 'svc.op1.body', 'svc.none'],
      typeSources: tools.slice(1, 2),
    };
    const text = await renderer.types(tools.slice(0, 3), options);
    expect(text).toBe(generateTypes(tools.slice(0, 3), options));
    expect(text).toContain('"svc.Other": CyrnelSchemas.svc.Other;');
    expect(text).toContain('// Unknown types');
  });

  it('fails a rendering past its deadline, naming it, and renders the next in a fresh worker', async () => {
    // The deadline also bounds the fresh worker's first rendering below (its start included), so it
    // leaves room for a loaded machine; the costly catalog takes seconds beyond it.
    renderer = createRenderer({ workerPath, timeoutMs: 1000 });
    const costly = Array.from({ length: 100 }, (_, i) => tool('deep', `t${i}`, explosive(12, 6)));
    const started = performance.now();
    await expect(renderer.types(costly)).rejects.toThrow(
      'rendering the type declarations took longer than 1000 ms; it was stopped',
    );
    expect(performance.now() - started).toBeLessThan(5000);
    const one = catalog[1] as ToolDocsInput;
    expect(await renderer.toolDocs(one)).toBe(generateToolDocs(one));
    expect(await renderer.types(catalog.slice(0, 5))).toBe(generateTypes(catalog.slice(0, 5)));
  });

  it('refuses input that is not plain data and goes on', async () => {
    renderer = createRenderer({ workerPath, timeoutMs: 60_000 });
    const bad = tool('a', 'b', { type: 'object', default: () => 1 } as never);
    await expect(renderer.toolDocs(bad)).rejects.toThrow(/the docs of a\.b cannot be rendered: its schemas/);
    expect(await renderer.signature(catalog[2] as ToolDocsInput)).toBe(
      renderToolSignature(catalog[2] as ToolDocsInput),
    );
  });

  it('rejects what is pending once closed, and everything after', async () => {
    renderer = createRenderer({ workerPath, timeoutMs: 60_000 });
    const costly = Array.from({ length: 10 }, (_, i) => tool('deep', `t${i}`, explosive(12, 6)));
    const pending = renderer.types(costly);
    const queued = renderer.types(catalog);
    renderer.close();
    await expect(pending).rejects.toThrow('the environment was torn down');
    await expect(queued).rejects.toThrow('the environment was torn down');
    await expect(renderer.toolDocs(catalog[0] as ToolDocsInput)).rejects.toThrow('torn down');
  });
});

describe('typescript-ivm rendering', () => {
  it('renders types and tool docs in its worker under renderTimeoutMs, and again after teardown', async () => {
    const { env } = await startEnvironment({ renderTimeoutMs: 1000 });
    const costly = Array.from({ length: 100 }, (_, i) => tool('deep', `t${i}`, explosive(12, 6)));
    await expect(env.generateTypes?.(costly)).rejects.toThrow('took longer than 1000 ms');
    const few = catalog.slice(0, 20);
    expect(await env.generateTypes?.(few)).toBe(generateTypes(few));
    const stopped = expect(env.generateTypes?.(costly)).rejects.toThrow('the environment was torn down');
    await env.teardown();
    await stopped;
    const one = catalog[3] as ToolDocsInput;
    expect(await env.generateToolDocs(one)).toBe(generateToolDocs(one));
    await env.teardown();
  });
});
