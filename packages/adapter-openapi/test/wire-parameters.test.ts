import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from './echo-server';
import { type Installed, install } from './harness';
import { useSchemaChecker } from './schema-check';

const checker = useSchemaChecker();

// The OpenAPI 3.0.3 style examples table: color = "blue", ["blue","black","brown"], {R:100,G:200,B:150}.
const PRIMITIVE = 'blue';
const ARRAY = ['blue', 'black', 'brown'];
const OBJECT = { R: 100, G: 200, B: 150 };
const ANY = { type: ['string', 'array', 'object'], items: { type: 'string' } };

const cases = [
  { in: 'path', style: 'simple', explode: false, expect: ['blue', 'blue,black,brown', 'R,100,G,200,B,150'] },
  { in: 'path', style: 'simple', explode: true, expect: ['blue', 'blue,black,brown', 'R=100,G=200,B=150'] },
  {
    in: 'path',
    style: 'label',
    explode: false,
    expect: ['.blue', '.blue.black.brown', '.R.100.G.200.B.150'],
  },
  { in: 'path', style: 'label', explode: true, expect: ['.blue', '.blue.black.brown', '.R=100.G=200.B=150'] },
  {
    in: 'path',
    style: 'matrix',
    explode: false,
    expect: [';color=blue', ';color=blue,black,brown', ';color=R,100,G,200,B,150'],
  },
  {
    in: 'path',
    style: 'matrix',
    explode: true,
    expect: [';color=blue', ';color=blue;color=black;color=brown', ';R=100;G=200;B=150'],
  },
  {
    in: 'query',
    style: 'form',
    explode: true,
    expect: ['color=blue', 'color=blue&color=black&color=brown', 'R=100&G=200&B=150'],
  },
  {
    in: 'query',
    style: 'form',
    explode: false,
    expect: ['color=blue', 'color=blue,black,brown', 'color=R,100,G,200,B,150'],
  },
  {
    in: 'query',
    style: 'spaceDelimited',
    explode: false,
    expect: [null, 'color=blue%20black%20brown', 'color=R%20100%20G%20200%20B%20150'],
  },
  {
    in: 'query',
    style: 'pipeDelimited',
    explode: false,
    expect: [null, 'color=blue|black|brown', 'color=R|100|G|200|B|150'],
  },
  {
    in: 'query',
    style: 'spaceDelimited',
    explode: true,
    expect: [null, 'color=blue&color=black&color=brown', null],
  },
  {
    in: 'query',
    style: 'pipeDelimited',
    explode: true,
    expect: [null, 'color=blue&color=black&color=brown', null],
  },
  {
    in: 'query',
    style: 'deepObject',
    explode: true,
    expect: [null, null, 'color[R]=100&color[G]=200&color[B]=150'],
  },
  {
    in: 'header',
    style: 'simple',
    explode: false,
    expect: ['blue', 'blue,black,brown', 'R,100,G,200,B,150'],
  },
  { in: 'header', style: 'simple', explode: true, expect: ['blue', 'blue,black,brown', 'R=100,G=200,B=150'] },
  {
    in: 'cookie',
    style: 'form',
    explode: false,
    expect: ['color=blue', 'color=blue,black,brown', 'color=R,100,G,200,B,150'],
  },
  {
    in: 'cookie',
    style: 'form',
    explode: true,
    expect: ['color=blue', 'color=blue; color=black; color=brown', 'R=100; G=200; B=150'],
  },
] as const;

const slotOf = { path: 'path', query: 'query', header: 'headers', cookie: 'cookies' } as const;
const nameOf = (c: (typeof cases)[number]) => `${c.in}_${c.style}_${c.explode}`;

const paths: Record<string, unknown> = {};
for (const c of cases) {
  paths[`/${nameOf(c)}${c.in === 'path' ? '/{color}' : ''}`] = {
    get: {
      operationId: nameOf(c),
      parameters: [
        {
          name: c.in === 'header' ? 'X-Color' : 'color',
          in: c.in,
          required: c.in === 'path',
          style: c.style,
          explode: c.explode,
          schema: ANY,
        },
      ],
      responses: { '200': { description: 'echo', content: { 'application/json': {} } } },
    },
  };
}
paths['/reserved'] = {
  get: {
    operationId: 'reserved',
    parameters: [
      { name: 'raw', in: 'query', allowReserved: true, schema: { type: 'string' } },
      { name: 'plain', in: 'query', schema: { type: 'string' } },
      { name: 'filter', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
      { name: 'Accept', in: 'header', schema: { type: 'string' } },
      { name: 'number', in: 'query', schema: { type: 'integer' } },
      { name: 'flag', in: 'query', schema: { type: 'boolean' } },
    ],
  },
};

paths['/files/{name}'] = {
  get: {
    operationId: 'file',
    parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
  },
};
paths['/labels/{name}'] = {
  get: {
    operationId: 'label',
    parameters: [{ name: 'name', in: 'path', required: true, style: 'label', schema: { type: 'string' } }],
  },
};

paths['/undeclared/{x}/items/{id}'] = {
  get: {
    operationId: 'undeclared',
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
  },
};

// Query strings in `paths` keys (OpenAPI forbids them; real documents have them).
paths['/uploads?convert={convert}'] = { post: { operationId: 'upload' } };
paths['/search?type=repo&sort=a%20b&q={q}'] = {
  get: {
    operationId: 'search',
    parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'integer' } }],
  },
};
paths['/exports/{id}?format={format}'] = {
  get: {
    operationId: 'exportAs',
    parameters: [
      { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
      { name: 'format', in: 'path', required: true, schema: { enum: ['csv', 'json'] } },
    ],
  },
};

const json = (schema: unknown) => ({ 'application/json': { schema } });
paths['/content/{p}'] = {
  get: {
    operationId: 'content',
    parameters: [
      { name: 'p', in: 'path', required: true, content: json({ type: 'object' }) },
      { name: 'X-Filter', in: 'header', content: json({ type: 'object' }) },
      { name: 'c', in: 'cookie', content: json({ type: 'array' }) },
    ],
  },
};

// Swagger 2.0 collectionFormat on query parameters (csv is the default).
const formats = ['csv', 'ssv', 'tsv', 'pipes', 'multi'] as const;
const swagger = {
  swagger: '2.0',
  info: { title: 'formats', version: '1' },
  host: 'placeholder.invalid',
  paths: {
    '/formats': {
      get: {
        operationId: 'formats',
        parameters: formats.map((format) => ({
          name: format,
          in: 'query',
          type: 'array',
          items: { type: 'string' },
          ...(format === 'csv' ? {} : { collectionFormat: format }),
        })),
        responses: { '200': { description: 'echo' } },
      },
    },
  },
};

let server: EchoServer;
let service: Installed;

beforeAll(async () => {
  server = await startEchoServer();
  service = await install(checker, {
    openapi: '3.1.0',
    info: { title: 'styles', version: '1' },
    servers: [{ url: server.url }],
    paths,
  });
});

afterAll(async () => {
  await service.adapter.teardown();
  await server.close();
});

describe('parameter serialisation (OpenAPI 3.0.3 style table)', () => {
  for (const c of cases) {
    it(`does serialise ${c.in} ${c.style} explode=${c.explode}`, async () => {
      const values = [PRIMITIVE, ARRAY, OBJECT];
      let checked = 0;
      for (const [i, value] of values.entries()) {
        const expected = c.expect[i];
        if (expected === null || expected === undefined) continue;
        const name = c.in === 'header' ? 'X-Color' : 'color';
        const echo = await service.echo(nameOf(c), { [slotOf[c.in]]: { [name]: value } });
        const seen =
          c.in === 'path'
            ? echo.path.slice(`/${nameOf(c)}/`.length)
            : c.in === 'query'
              ? echo.rawQuery
              : c.in === 'header'
                ? echo.headers['x-color']
                : echo.cookies;
        expect(seen).toBe(expected);
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
    });
  }

  it('does percent-encode path values, keeping reserved characters out of the path', async () => {
    const echo = await service.echo('path_simple_false', { path: { color: 'a b/c?d#e' } });
    expect(echo.path).toBe('/path_simple_false/a%20b%2Fc%3Fd%23e');
  });

  it('does send a path value that is a dot segment as one ordinary segment, never resolved away', async () => {
    const seen = async (toolId: string, name: string) =>
      (await service.echo(toolId, { path: { name } })).path;
    expect(await seen('file', '..')).toBe('/files/%2E%2E');
    expect(await seen('file', '.')).toBe('/files/%2E');
    expect(await seen('file', '%2E%2E')).toBe('/files/%252E%252E');
    expect(await seen('file', 'a..b')).toBe('/files/a..b');
    expect(await seen('file', '../admin')).toBe('/files/..%2Fadmin');
    // Label style prefixes a '.', so the value '.' would make '..'.
    expect(await seen('label', '.')).toBe('/labels/%2E%2E');
    expect(await seen('label', 'x')).toBe('/labels/.x');
  });

  it('does add a path template variable the document does not declare as a required string', async () => {
    const tool = service.definition.tools.find((t) => t.id === 'undeclared');
    const slot = (tool?.inputSchema.properties as Record<string, Record<string, unknown>> | undefined)?.path;
    expect(slot).toMatchObject({ required: ['id', 'x'], properties: { x: { type: 'string' } } });
    expect((await service.echo('undeclared', { path: { id: 1, x: 'a b' } })).path).toBe(
      '/undeclared/a%20b/items/1',
    );
  });

  it('does bind the variables of a query string in the path key as query parameters', async () => {
    const upload = service.definition.tools.find((t) => t.id === 'upload');
    expect(upload?.inputSchema.properties).toEqual({
      query: {
        type: 'object',
        properties: { convert: { type: 'string', description: expect.stringContaining('path key') } },
        additionalProperties: false,
      },
    });
    const converted = await service.echo('upload', { query: { convert: 'pdf & png' } });
    expect([converted.method, converted.path, converted.rawQuery]).toEqual([
      'POST',
      '/uploads',
      'convert=pdf%20%26%20png',
    ]);
    const plain = await service.echo('upload', {});
    expect([plain.path, plain.rawQuery]).toEqual(['/uploads', '']);
  });

  it('does send literal pairs of the path key as written, and let a declared parameter of the same name win', async () => {
    const search = service.definition.tools.find((t) => t.id === 'search');
    expect(search?.inputSchema.properties).toEqual({
      query: {
        type: 'object',
        properties: { q: { type: 'integer' } },
        required: ['q'],
        additionalProperties: false,
      },
    });
    const echo = await service.echo('search', { query: { q: 7 } });
    expect([echo.path, echo.rawQuery]).toEqual(['/search', 'type=repo&sort=a%20b&q=7']);
  });

  it("does move a parameter declared in the path for a variable of the key's query string to the query", async () => {
    const tool = service.definition.tools.find((t) => t.id === 'exportAs');
    expect(tool?.inputSchema).toMatchObject({
      properties: {
        path: { properties: { id: { type: 'integer' } }, required: ['id'] },
        query: { properties: { format: { enum: ['csv', 'json'] } }, required: ['format'] },
      },
      required: ['path', 'query'],
    });
    const echo = await service.echo('exportAs', { path: { id: 3 }, query: { format: 'csv' } });
    expect([echo.path, echo.rawQuery]).toEqual(['/exports/3', 'format=csv']);
  });

  it('does send path, header and cookie parameters described with content as JSON', async () => {
    const echo = await service.echo('content', {
      path: { p: { a: 1 } },
      headers: { 'X-Filter': { q: 'x y' } },
      cookies: { c: [1, 'two'] },
    });
    expect(echo.path).toBe('/content/%7B%22a%22%3A1%7D');
    expect(echo.headers['x-filter']).toBe('{"q":"x y"}');
    expect(echo.cookies).toBe('c=%5B1%2C%22two%22%5D');
  });

  it('does send Swagger 2.0 collectionFormat csv, ssv, tsv, pipes and multi', async () => {
    const v2 = await install(checker, swagger, { baseUrl: server.url });
    const query = Object.fromEntries(formats.map((format) => [format, ['a', 'b']]));
    expect((await v2.echo('formats', { query })).rawQuery).toBe(
      'csv=a,b&ssv=a%20b&tsv=a%09b&pipes=a|b&multi=a&multi=b',
    );
    await v2.adapter.teardown();
  });

  it('does honour allowReserved, content parameters and scalars; ignores an Accept header parameter', async () => {
    const echo = await service.echo('reserved', {
      query: { raw: 'a/b?c=[d]', plain: 'a/b?c=[d] é', filter: { a: 1 }, number: 7, flag: false },
    });
    expect(echo.rawQuery).toBe(
      'raw=a/b?c=[d]&plain=a%2Fb%3Fc%3D%5Bd%5D%20%C3%A9&filter=%7B%22a%22%3A1%7D&number=7&flag=false',
    );
    const tool = service.definition.tools.find((t) => t.id === 'reserved');
    expect(Object.keys((tool?.inputSchema.properties as Record<string, unknown>) ?? {})).toEqual(['query']);
  });
});
