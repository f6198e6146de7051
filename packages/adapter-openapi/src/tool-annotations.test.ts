import { describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { generateDefinition } from './generate-definition';
import { toolAnnotations } from './tool-annotations';

const ext = (value: unknown) => ({ 'x-cyrnel-annotations': value });

describe('toolAnnotations', () => {
  it('does derive them from the HTTP method', () => {
    for (const method of ['get', 'head', 'options', 'trace'])
      expect(toolAnnotations(method, {})).toEqual({ readOnly: true, idempotent: true });
    expect(toolAnnotations('put', {})).toEqual({ readOnly: false, idempotent: true });
    expect(toolAnnotations('delete', {})).toEqual({ readOnly: false, destructive: true, idempotent: true });
    expect(toolAnnotations('post', {})).toEqual({ readOnly: false });
    expect(toolAnnotations('patch', {})).toEqual({ readOnly: false });
    expect(toolAnnotations('GET', {})).toEqual({ readOnly: true, idempotent: true });
    expect(toolAnnotations('query', {})).toEqual({});
  });

  it('does let x-cyrnel-annotations override the derived values key by key', () => {
    expect(toolAnnotations('post', ext({ readOnly: true, openWorld: false }))).toEqual({
      readOnly: true,
      openWorld: false,
    });
    expect(toolAnnotations('delete', ext({ destructive: false }))).toEqual({
      readOnly: false,
      destructive: false,
      idempotent: true,
    });
    expect(toolAnnotations('get', ext({ openWorld: true, idempotent: false }))).toEqual({
      readOnly: true,
      idempotent: false,
      openWorld: true,
    });
  });

  it('does ignore unknown keys and values that are not booleans, keeping the derived ones', () => {
    expect(
      toolAnnotations(
        'put',
        ext({ readOnly: 'yes', idempotent: null, destructive: 1, openWorld: {}, readonly: true, extra: 7 }),
      ),
    ).toEqual({ readOnly: false, idempotent: true });
    for (const value of ['readOnly', ['readOnly'], null, 7, true])
      expect(toolAnnotations('get', ext(value))).toEqual({ readOnly: true, idempotent: true });
    // A key only inherited (a polluted prototype, a `__proto__` key of JSON) is not stated.
    const stated = JSON.parse('{"__proto__": {"destructive": true}}');
    expect(toolAnnotations('post', ext(stated))).toEqual({ readOnly: false });
  });

  it('does write the keys in one order whatever the order of the extension', () => {
    const a = toolAnnotations('post', ext({ openWorld: true, destructive: true, readOnly: false }));
    const b = toolAnnotations('post', ext({ readOnly: false, destructive: true, openWorld: true }));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(Object.keys(a)).toEqual(['readOnly', 'destructive', 'openWorld']);
  });
});

describe('generateDefinition annotations', () => {
  const ok = { '200': { description: 'ok' } };
  const doc = {
    openapi: '3.1.0',
    info: { title: 'Pets', version: '1' },
    paths: {
      '/pets': {
        get: { operationId: 'listPets', responses: ok },
        post: { operationId: 'createPet', responses: ok },
      },
      '/pets/{petId}': {
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
        put: { operationId: 'replacePet', responses: ok },
        delete: { operationId: 'deletePet', responses: ok },
      },
      '/pets/search': {
        post: {
          operationId: 'searchPets',
          'x-cyrnel-annotations': { readOnly: true, idempotent: true, openWorld: false, colour: 'red' },
          responses: ok,
        },
      },
      '/pets/{petId}/photo': {
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
        delete: {
          operationId: 'deletePhoto',
          'x-cyrnel-annotations': { destructive: 'no' },
          responses: ok,
        },
      },
    },
  };

  it('does give every tool its annotations, the extension overriding the method', () => {
    const byId = Object.fromEntries(
      generateDefinition(JSON.stringify(doc)).tools.map((tool) => [tool.id, tool.annotations]),
    );
    expect(byId).toEqual({
      listPets: { readOnly: true, idempotent: true },
      createPet: { readOnly: false },
      replacePet: { readOnly: false, idempotent: true },
      deletePet: { readOnly: false, destructive: true, idempotent: true },
      searchPets: { readOnly: true, idempotent: true, openWorld: false },
      deletePhoto: { readOnly: false, destructive: true, idempotent: true },
    });
  });

  it('does read the extension from YAML and Swagger 2.0 documents too, and answers the same twice', () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 'Pets', version: '1' },
      paths: {
        '/pets': { post: { operationId: 'find', 'x-cyrnel-annotations': { readOnly: true }, responses: ok } },
      },
    };
    const text = stringifyYaml(swagger);
    expect(generateDefinition(text).tools[0]?.annotations).toEqual({ readOnly: true });
    expect(generateDefinition(text)).toEqual(generateDefinition(text));
    expect(JSON.stringify(generateDefinition(JSON.stringify(doc)))).toBe(
      JSON.stringify(generateDefinition(JSON.stringify(doc))),
    );
  });
});
