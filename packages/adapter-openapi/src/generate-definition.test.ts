import { type JSONSchema, withSharedSchemas } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { isValid, useSchemaChecker } from '../test/schema-check';
import { generateDefinition } from './generate-definition';

const checker = useSchemaChecker();

const info = { title: 'T', version: '1' };
const ok = { '200': { description: 'ok' } };
const gen = (doc: unknown) => generateDefinition(typeof doc === 'string' ? doc : JSON.stringify(doc));
const valid = (schema: JSONSchema, value: unknown) => isValid(checker, schema, value);
/** A tool with its schemas made self-contained, as the host validates them (the shared schemas they reach as `$defs`). */
const tool = (doc: unknown, id: string) => {
  const definition = gen(doc);
  const found = definition.tools.find((t) => t.id === id);
  if (!found) throw new Error(`no tool ${id}`);
  return {
    ...found,
    inputSchema: withSharedSchemas(found.inputSchema, definition.schemas),
    outputSchema: withSharedSchemas(found.outputSchema, definition.schemas),
  };
};

describe('generateDefinition errors', () => {
  it('does name what is wrong with the document', () => {
    expect(() => gen('')).toThrow('definition is empty');
    expect(() => gen('{"openapi": ')).toThrow('neither valid JSON nor valid YAML');
    expect(() => gen('just text')).toThrow('not an OpenAPI document');
    expect(() => gen({ info })).toThrow("not an OpenAPI document: no 'openapi' or 'swagger' version field");
    expect(() => gen({ openapi: '4.0.0', info, paths: {} })).toThrow("unsupported OpenAPI version '4.0.0'");
    expect(() => gen({ swagger: '1.2', info, paths: {} })).toThrow("unsupported Swagger version '1.2'");
  });

  it('does refuse paths, path items and operations that are not objects, naming what they are', () => {
    const doc = (paths: unknown) => ({ openapi: '3.1.0', info, paths });
    expect(() => gen(doc('/pets'))).toThrow('paths must be an object of path items, got a string');
    expect(() => gen(doc([{ get: {} }]))).toThrow('paths must be an object of path items, got an array');
    expect(() => gen(doc(null))).toThrow('paths must be an object of path items, got null');
    expect(() => gen(doc({ '/pets': 'list' }))).toThrow(
      "paths['/pets'] must be a path item object, got a string",
    );
    expect(() => gen(doc({ '/pets': null }))).toThrow("paths['/pets'] must be a path item object, got null");
    expect(() => gen(doc({ '/pets': { get: [] } }))).toThrow(
      'GET /pets: the operation must be an object, got an array',
    );
    expect(() => gen(doc({ '/pets': { post: 7 } }))).toThrow(
      'POST /pets: the operation must be an object, got a number',
    );
  });

  it('does skip x- extensions of paths and the non-operation fields of a path item, whatever their value', () => {
    const def = gen({
      openapi: '3.0.3',
      info,
      paths: {
        'x-generated': 'by hand',
        '/pets': {
          summary: 'Pets',
          parameters: [],
          'x-owner': 7,
          get: { operationId: 'list', responses: ok },
        },
      },
    });
    expect(def.tools.map((t) => t.id)).toEqual(['list']);
  });

  it('does name unresolvable, external and circular $refs', () => {
    const withSchema = (schema: unknown, components: unknown = {}) => ({
      openapi: '3.0.0',
      info,
      components,
      paths: {
        '/x': { get: { operationId: 'x', parameters: [{ name: 'q', in: 'query', schema }], responses: ok } },
      },
    });
    expect(() => gen(withSchema({ $ref: '#/components/schemas/Missing' }))).toThrow(
      "GET /x: unresolvable $ref '#/components/schemas/Missing'",
    );
    expect(() => gen(withSchema({ $ref: 'other.yaml#/Pet' }))).toThrow("unsupported $ref 'other.yaml#/Pet'");
    expect(() =>
      gen(
        withSchema(
          { $ref: '#/components/schemas/A' },
          { schemas: { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } } },
        ),
      ),
    ).toThrow('circular $ref chain');
    expect(() => gen({ openapi: '3.0.0', info, paths: { '/x': { $ref: '#/paths/~1y' } } })).toThrow(
      "unresolvable $ref '#/paths/~1y'",
    );
  });
});

describe('generateDefinition YAML', () => {
  it('does read YAML with anchors, merge keys and duplicate keys', () => {
    const yaml = [
      'openapi: 3.0.3',
      'info: {title: Y, version: "1"}',
      'x-common: &common',
      '  responses: {"200": {description: ok}}',
      'paths:',
      '  /a:',
      '    get:',
      '      <<: *common',
      '      operationId: first',
      '      operationId: second',
    ].join('\n');
    const def = gen(yaml);
    expect(def.tools.map((t) => t.id)).toHaveLength(1);
    expect(def.tools[0]?.outputSchema.oneOf).toHaveLength(1);
  });

  it('does refuse a circular YAML alias instead of overflowing the stack', () => {
    const yaml =
      'openapi: 3.0.3\ninfo: {title: Y, version: "1"}\npaths:\n  /a: &loop\n    get:\n      x: *loop\n';
    expect(() => gen(yaml)).toThrow('circular YAML alias');
  });

  it('does keep a property named __proto__ as a property', () => {
    // A computed key makes an own property, so the JSON text really contains "__proto__".
    const schema = { type: 'object', properties: { ['__proto__']: { type: 'string' } } };
    const doc = {
      openapi: '3.0.3',
      info,
      paths: {
        '/a': { post: { operationId: 'a', requestBody: { content: { 'application/json': { schema } } } } },
      },
    };
    expect(JSON.stringify(doc)).toContain('"__proto__"');
    const body = (tool(doc, 'a').inputSchema.properties as Record<string, { properties: object }>).body;
    expect(Object.keys(body?.properties ?? {})).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(body?.properties)).toBe(Object.prototype);
  });
});

describe('generateDefinition tools', () => {
  it('does make one tool per operation with deterministic ids, names and descriptions', () => {
    const def = gen({
      openapi: '3.1.0',
      info: { ...info, description: 'About' },
      paths: {
        '/jobs': { get: { summary: 'List jobs', responses: ok }, delete: { operationId: 'delete' } },
        '/jobs/': { get: { description: 'Slash variant' } },
        '/meta': {
          get: { operationId: 'meta/root', summary: 'Root', description: 'Long' },
          post: { operationId: 'Meta_Root' },
        },
        '/n': { put: { operationId: '1st' } },
      },
      webhooks: { hook: { post: { operationId: 'hook' } } },
    });
    expect([def.name, def.description]).toEqual(['T', 'About']);
    expect(def.tools.map((t) => [t.id, t.name, t.description])).toEqual([
      ['get_jobs', 'List jobs', 'List jobs'],
      ['delete_', 'delete_', 'DELETE /jobs'],
      ['get_jobs_2', 'get_jobs_2', 'Slash variant'],
      ['meta_root', 'Root', 'Long'],
      ['Meta_Root_2', 'Meta_Root_2', 'POST /meta'],
      ['_1st', '_1st', 'PUT /n'],
    ]);
  });

  it('does give a webhooks-only document no tools', () => {
    expect(gen({ openapi: '3.1.0', info, webhooks: { a: { post: { responses: ok } } } }).tools).toEqual([]);
  });

  it('does split a query string off a paths key: the plan keeps the path, ids the whole key', () => {
    const def = gen({
      openapi: '3.0.3',
      info,
      paths: { '/uploads?convert={convert}&v=2': { post: { responses: ok } } },
    });
    expect(def.tools.map((t) => [t.id, t.description])).toEqual([
      ['post_uploads_convert_convert_v_2', 'POST /uploads?convert={convert}&v=2'],
    ]);
    expect(def.tools[0]?.adapterDomain).toMatchObject({
      path: '/uploads',
      literalQuery: 'v=2',
      parameters: [{ name: 'convert', in: 'query', style: 'form', explode: true }],
    });
  });

  it('does merge path-level parameters (operation wins), drop Accept/Content-Type/Authorization and set required', () => {
    const t = tool(
      {
        openapi: '3.0.3',
        info,
        components: { parameters: { limit: { name: 'limit', in: 'query', schema: { type: 'integer' } } } },
        paths: {
          '/a/{id}': {
            parameters: [
              { name: 'id', in: 'path', schema: { type: 'string' } },
              { name: 'q', in: 'query', schema: { type: 'string' } },
              { $ref: '#/components/parameters/limit' },
            ],
            post: {
              operationId: 'a',
              parameters: [
                { name: 'q', in: 'query', required: true, schema: { type: 'integer' } },
                { name: 'accept', in: 'header', schema: { type: 'string' } },
                { name: 'Content-Type', in: 'header', schema: { type: 'string' } },
                { name: 'Authorization', in: 'header', schema: { type: 'string' } },
                { name: 'X-Req', in: 'header', schema: { type: 'string' } },
                { name: 'c', in: 'cookie', content: { 'application/json': { schema: { type: 'object' } } } },
              ],
              requestBody: {
                required: true,
                content: { 'application/json': { schema: { type: 'object' } } },
              },
            },
          },
        },
      },
      'a',
    );
    expect(t.inputSchema).toEqual({
      type: 'object',
      properties: {
        path: {
          type: 'object',
          properties: { id: { type: 'string' } },
          required: ['id'],
          additionalProperties: false,
        },
        query: {
          type: 'object',
          properties: { q: { type: 'integer' }, limit: { type: 'integer' } },
          required: ['q'],
          additionalProperties: false,
        },
        headers: { type: 'object', properties: { 'X-Req': { type: 'string' } }, additionalProperties: false },
        cookies: { type: 'object', properties: { c: { type: 'object' } }, additionalProperties: false },
        body: { type: 'object' },
      },
      required: ['path', 'query', 'body'],
      additionalProperties: false,
    });
  });
});

describe('generateDefinition schemas', () => {
  const components = {
    schemas: {
      Node: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        },
      },
      Pet: {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: {
          propertyName: 'kind',
          mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' },
        },
      },
      Base: {
        type: 'object',
        required: ['kind', 'id'],
        properties: { kind: { type: 'string' }, id: { type: 'integer', readOnly: true } },
      },
      Cat: {
        allOf: [
          { $ref: '#/components/schemas/Base' },
          {
            type: 'object',
            properties: {
              kind: { enum: ['cat'] },
              lives: { type: 'integer', minimum: 0, exclusiveMinimum: true },
            },
          },
        ],
      },
      Dog: {
        allOf: [
          { $ref: '#/components/schemas/Base' },
          {
            type: 'object',
            required: ['bark'],
            properties: {
              kind: { enum: ['dog'] },
              bark: { type: 'string', nullable: true, pattern: '(?<!x' },
            },
          },
        ],
      },
      Maybe: { nullable: true, allOf: [{ $ref: '#/components/schemas/Node' }] },
      Color: { type: 'string', enum: ['red'], nullable: true },
    },
  };
  const doc = (schema: unknown, dialect = '3.0.3') => ({
    openapi: dialect,
    info,
    components,
    paths: {
      '/x': {
        post: {
          operationId: 'x',
          requestBody: { required: true, content: { 'application/json': { schema } } },
          responses: ok,
        },
      },
    },
  });
  const bodySchema = (schema: unknown, dialect?: string) => tool(doc(schema, dialect), 'x').inputSchema;
  const withBody = (body: unknown) => ({ body });

  it('does keep recursive schemas finite with $defs holding only reachable definitions', async () => {
    const schema = bodySchema({ $ref: '#/components/schemas/Node' });
    expect(Object.keys(schema.$defs as object)).toEqual(['Node']);
    expect(
      (schema.$defs as Record<string, { properties: { children: unknown } }>).Node?.properties.children,
    ).toEqual({ type: 'array', items: { $ref: '#/$defs/Node' } });
    expect(
      await valid(schema, withBody({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] })),
    ).toBe(true);
    expect(await valid(schema, withBody({ name: 'a', children: [{ children: [] }] }))).toBe(false);
  });

  it('does preserve oneOf/allOf/discriminator, relax readOnly required, and convert 3.0 keywords', async () => {
    const schema = bodySchema({ $ref: '#/components/schemas/Pet' });
    expect(Object.keys(schema.$defs as object)).toEqual(['Base', 'Cat', 'Dog', 'Pet']);
    expect((schema.$defs as Record<string, { discriminator: unknown }>).Pet?.discriminator).toEqual({
      propertyName: 'kind',
      mapping: { cat: '#/$defs/Cat', dog: '#/$defs/Dog' },
    });
    expect(await valid(schema, withBody({ kind: 'cat', lives: 9 }))).toBe(true);
    expect(await valid(schema, withBody({ kind: 'cat', lives: 0 }))).toBe(false);
    expect(await valid(schema, withBody({ kind: 'dog', bark: null }))).toBe(true);
    expect(await valid(schema, withBody({ kind: 'dog' }))).toBe(false);
    expect(await valid(schema, withBody({ kind: 'bird' }))).toBe(false);
  });

  it('does turn 3.0 nullable into type arrays, enum null or anyOf null', async () => {
    expect(await valid(bodySchema({ $ref: '#/components/schemas/Maybe' }), withBody(null))).toBe(true);
    expect(await valid(bodySchema({ $ref: '#/components/schemas/Maybe' }), withBody({ name: 'n' }))).toBe(
      true,
    );
    expect(await valid(bodySchema({ $ref: '#/components/schemas/Maybe' }), withBody(3))).toBe(false);
    expect(await valid(bodySchema({ $ref: '#/components/schemas/Color' }), withBody(null))).toBe(true);
    expect(await valid(bodySchema({ $ref: '#/components/schemas/Color' }), withBody('blue'))).toBe(false);
    expect(bodySchema({ type: 'integer', nullable: true }).properties).toEqual({
      body: { type: ['integer', 'null'] },
    });
  });

  it('does keep 3.1 numeric exclusive bounds next to minimum', async () => {
    const schema = bodySchema({ type: 'integer', minimum: 1, exclusiveMaximum: 10 }, '3.1.0');
    expect(schema.properties).toEqual({ body: { type: 'integer', minimum: 1, exclusiveMaximum: 10 } });
    expect(await valid(schema, withBody(10))).toBe(false);
  });

  it('does keep 3.1 type arrays and boolean schemas', async () => {
    const schema = bodySchema(
      { type: 'object', properties: { a: { type: ['string', 'null'] }, b: true, c: false } },
      '3.1.0',
    );
    expect(await valid(schema, withBody({ a: null, b: 1 }))).toBe(true);
    expect(await valid(schema, withBody({ a: 1 }))).toBe(false);
    expect(await valid(schema, withBody({ c: 1 }))).toBe(false);
  });

  it('does describe responses as a oneOf by status with 2XX and default mutually exclusive', async () => {
    const t = tool(
      {
        openapi: '3.0.3',
        info,
        paths: {
          '/x': {
            get: {
              operationId: 'x',
              responses: {
                '200': {
                  description: 'ok',
                  content: {
                    'application/json': {
                      schema: { type: 'object', properties: { a: { type: 'integer' } } },
                    },
                  },
                },
                '204': { description: 'none' },
                '2XX': {
                  description: 'other 2xx',
                  content: { 'text/plain': { schema: { type: 'string' } } },
                },
                default: { description: 'error', content: { 'application/octet-stream': {} } },
              },
            },
          },
        },
      },
      'x',
    );
    const out = t.outputSchema;
    const headers = {};
    expect(await valid(out, { status: 200, headers, body: { a: 1 } })).toBe(true);
    expect(await valid(out, { status: 200, headers, body: { a: 'x' } })).toBe(false);
    expect(await valid(out, { status: 204, headers, body: null })).toBe(true);
    expect(await valid(out, { status: 201, headers, body: 'text' })).toBe(true);
    expect(
      await valid(out, {
        status: 500,
        headers,
        body: { base64: 'AA==', contentType: 'application/octet-stream' },
      }),
    ).toBe(true);
    expect(await valid(out, { status: 500, headers, body: 'text' })).toBe(false);
    expect(t.adapterDomain.accept).toBe('application/json, text/plain, application/octet-stream');
  });
});

describe('generateDefinition config and secrets', () => {
  it('does derive baseUrl from servers with variables, and timeoutMs, headers, serverVariables', () => {
    const def = gen({
      openapi: '3.0.3',
      info,
      servers: [
        {
          url: 'https://{region}.example.com/{v}',
          variables: { region: { default: 'eu', enum: ['eu', 'us'] }, v: { default: 'v1' } },
        },
      ],
      paths: {},
    });
    expect(def.configSchema).toMatchObject({
      properties: {
        baseUrl: { type: 'string', default: 'https://eu.example.com/v1' },
        timeoutMs: { type: 'integer', default: 30000 },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        serverVariables: {
          properties: {
            region: { type: 'string', enum: ['eu', 'us'], default: 'eu' },
            v: { type: 'string', default: 'v1' },
          },
        },
      },
    });
    expect(def.configSchema.required).toBeUndefined();
  });

  it('does require baseUrl when no absolute server is declared', () => {
    expect(
      gen({ openapi: '3.0.3', info, servers: [{ url: '/api/v3' }], paths: {} }).configSchema.required,
    ).toEqual(['baseUrl']);
    expect(gen({ swagger: '2.0', info, paths: {} }).configSchema.required).toEqual(['baseUrl']);
    const swagger = gen({
      swagger: '2.0',
      info,
      host: 'api.example.com',
      basePath: '/v2',
      schemes: ['http', 'https'],
      paths: {},
    });
    expect((swagger.configSchema.properties as Record<string, { default?: string }>).baseUrl?.default).toBe(
      'https://api.example.com/v2',
    );
  });

  it('does give one secret per security scheme', () => {
    const def = gen({
      swagger: '2.0',
      info,
      securityDefinitions: {
        basicAuth: { type: 'basic' },
        key: { type: 'apiKey', in: 'header', name: 'X-Key' },
        oauth: { type: 'oauth2', flow: 'implicit', authorizationUrl: 'https://x', scopes: {} },
      },
      paths: {},
    });
    expect(def.secretsSchema).toMatchObject({
      type: 'object',
      properties: {
        basicAuth: { type: 'object', required: ['username', 'password'] },
        key: { type: 'string' },
        oauth: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
      },
      additionalProperties: false,
    });
    expect(def.secretsSchema.required).toBeUndefined();
  });

  it('does offer a headers secret for a document without security schemes, unless a scheme takes the name', async () => {
    const bare = gen({ openapi: '3.0.3', info, paths: {} }).secretsSchema;
    expect(Object.keys(bare.properties ?? {})).toEqual(['headers']);
    expect(await valid(bare, { headers: { Authorization: 'Bearer t' } })).toBe(true);
    expect(await valid(bare, { headers: { Authorization: 7 } })).toBe(false);
    expect(await valid(bare, {})).toBe(true);
    const taken = gen({
      openapi: '3.0.3',
      info,
      components: { securitySchemes: { headers: { type: 'http', scheme: 'bearer' } } },
      paths: {},
    }).secretsSchema;
    expect(taken.properties).toEqual({ headers: { type: 'string', description: expect.any(String) } });
  });
});
