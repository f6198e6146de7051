import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from './echo-server';
import { type Installed, install } from './harness';
import { useSchemaChecker } from './schema-check';

const checker = useSchemaChecker();

const ok = { '200': { description: 'echo', content: { 'application/json': {} } } };
const op = (
  operationId: string,
  mediaType: string,
  schema: unknown,
  extra: Record<string, unknown> = {},
) => ({
  post: {
    operationId,
    requestBody: { required: true, content: { [mediaType]: { schema, ...extra } } },
    responses: ok,
  },
});

const document = {
  openapi: '3.0.3',
  info: { title: 'bodies', version: '1' },
  paths: {
    '/json': op('json', 'application/json', {
      type: 'object',
      properties: { a: { type: 'integer', nullable: true } },
    }),
    '/vendor-json': op('vendorJson', 'application/vnd.api+json', { type: 'object' }),
    '/form': op(
      'form',
      'application/x-www-form-urlencoded',
      {
        type: 'object',
        properties: {
          name: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
          ids: { type: 'array', items: { type: 'integer' } },
          meta: { type: 'object' },
        },
      },
      { encoding: { ids: { style: 'form', explode: false }, meta: { style: 'deepObject', explode: true } } },
    ),
    '/multipart': op(
      'multipart',
      'multipart/form-data',
      {
        type: 'object',
        properties: {
          title: { type: 'string' },
          doc: { type: 'string', format: 'binary' },
          image: { type: 'string', format: 'binary' },
          meta: { type: 'object' },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
      { encoding: { image: { contentType: 'image/png' } } },
    ),
    '/plain-text': op('text', 'text/plain', { type: 'string' }),
    '/binary': op('binary', 'application/octet-stream', { type: 'string', format: 'binary' }),
    '/any': op('any', '*/*', {}),
    '/choice': {
      post: {
        operationId: 'choice',
        requestBody: {
          content: {
            'application/xml': { schema: { type: 'object' } },
            'application/json': { schema: { type: 'object' } },
          },
        },
        responses: ok,
      },
    },
  },
};

// File fields the 3.0.3 table does not show: 3.1 keywords, nullable and composed schemas, components.
const files31 = {
  openapi: '3.1.0',
  info: { title: 'files', version: '1' },
  components: {
    schemas: {
      Binary: { type: 'string', format: 'binary' },
      Upload: {
        type: 'object',
        properties: {
          avatar: { type: 'string', contentMediaType: 'image/png' },
          scan: { type: ['string', 'null'], format: 'binary' },
          legacy: { type: 'string', format: 'binary', nullable: true },
          composed: { allOf: [{ $ref: '#/components/schemas/Binary' }], description: 'composed' },
          either: { anyOf: [{ $ref: '#/components/schemas/Binary' }, { type: 'null' }] },
          many: { type: 'array', items: { $ref: '#/components/schemas/Binary' } },
          encoded: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png' },
          note: { type: 'string' },
        },
      },
    },
  },
  paths: {
    '/files': op('files', 'multipart/form-data', { $ref: '#/components/schemas/Upload' }),
  },
};

const swagger = {
  swagger: '2.0',
  info: { title: 'swagger bodies', version: '1' },
  host: 'placeholder.invalid',
  paths: {
    '/form': {
      post: {
        operationId: 'swaggerForm',
        consumes: ['application/x-www-form-urlencoded'],
        parameters: [
          { name: 'name', in: 'formData', type: 'string', required: true },
          { name: 'ids', in: 'formData', type: 'array', items: { type: 'integer' }, collectionFormat: 'csv' },
          {
            name: 'tags',
            in: 'formData',
            type: 'array',
            items: { type: 'string' },
            collectionFormat: 'multi',
          },
        ],
        responses: { '200': { description: 'ok', schema: { type: 'object' } } },
      },
    },
    '/upload': {
      post: {
        operationId: 'swaggerUpload',
        consumes: ['multipart/form-data'],
        parameters: [
          { name: 'note', in: 'formData', type: 'string' },
          { name: 'file', in: 'formData', type: 'file', required: true },
        ],
        responses: { '200': { description: 'ok', schema: { type: 'object' } } },
      },
    },
    '/body': {
      put: {
        operationId: 'swaggerBody',
        parameters: [
          {
            name: 'payload',
            in: 'body',
            required: true,
            schema: { type: 'object', properties: { x: { type: 'string', 'x-nullable': true } } },
          },
        ],
        responses: { '204': { description: 'none' } },
      },
    },
  },
};

let server: EchoServer;
let v3: Installed;
let v2: Installed;
let v31: Installed;

beforeAll(async () => {
  server = await startEchoServer();
  v3 = await install(checker, document, { baseUrl: server.url });
  v2 = await install(checker, swagger, { baseUrl: server.url });
  v31 = await install(checker, files31, { baseUrl: server.url });
});

afterAll(async () => {
  await v3.adapter.teardown();
  await v2.adapter.teardown();
  await v31.adapter.teardown();
  await server.close();
});

function parts(body: string, contentType: string | undefined): string[] {
  const boundary = /boundary=(.+)$/.exec(contentType ?? '')?.[1];
  expect(boundary).toBeDefined();
  expect(body.endsWith(`--${boundary}--\r\n`)).toBe(true);
  return body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((p) => p.replace(/^\r\n/, '').replace(/\r\n$/, ''));
}

describe('request bodies on the wire', () => {
  it('does send JSON, including vendor +json types and 3.0 nullable values', async () => {
    const echo = await v3.echo('json', { body: { a: null } });
    expect(echo.headers['content-type']).toBe('application/json');
    expect(echo.body).toBe('{"a":null}');
    expect([echo.headers['content-length'], echo.headers['transfer-encoding']]).toEqual(['10', undefined]);
    const vendor = await v3.echo('vendorJson', { body: { data: [] } });
    expect(vendor.headers['content-type']).toBe('application/vnd.api+json');
    expect(vendor.body).toBe('{"data":[]}');
  });

  it('does send form-urlencoded with per-property encoding', async () => {
    const echo = await v3.echo('form', {
      body: { name: 'a b&c', tags: ['x', 'y'], ids: [1, 2], meta: { k: 'v' } },
    });
    expect(echo.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(echo.body).toBe('name=a%20b%26c&tags=x&tags=y&ids=1,2&meta[k]=v');
  });

  it('does send multipart with text fields, files as text or base64, JSON parts and repeated arrays', async () => {
    const echo = await v3.echo('multipart', {
      body: {
        title: 'hello',
        doc: 'plain text file',
        image: { base64: Buffer.from([137, 80, 78, 71]).toString('base64'), filename: 'p.png' },
        meta: { a: 1 },
        tags: ['t1', 't2'],
      },
    });
    const raw = Buffer.from(echo.bodyBase64, 'base64').toString('latin1');
    expect(parts(raw, echo.headers['content-type'] as string)).toEqual([
      'Content-Disposition: form-data; name="title"\r\n\r\nhello',
      'Content-Disposition: form-data; name="doc"; filename="doc"\r\nContent-Type: text/plain\r\n\r\nplain text file',
      `Content-Disposition: form-data; name="image"; filename="p.png"\r\nContent-Type: image/png\r\n\r\n${Buffer.from([137, 80, 78, 71]).toString('latin1')}`,
      'Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"a":1}',
      'Content-Disposition: form-data; name="tags"\r\n\r\nt1',
      'Content-Disposition: form-data; name="tags"\r\n\r\nt2',
    ]);
  });

  it('does recognise file fields described by 3.1 keywords, nullable or composed schemas', async () => {
    const png = Buffer.from([137, 80, 78, 71]);
    const file = (filename: string) => ({ base64: png.toString('base64'), filename });
    const echo = await v31.echo('files', {
      body: {
        avatar: file('a.png'),
        scan: 'scanned text',
        legacy: file('l.bin'),
        composed: file('c.bin'),
        either: 'either text',
        many: [file('m1.bin'), 'second text'],
        encoded: { base64: png.toString('base64'), filename: 'e.png' },
        note: 'plain',
      },
    });
    const raw = Buffer.from(echo.bodyBase64, 'base64').toString('latin1');
    const disposition = (name: string, filename: string, type: string) =>
      `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
    const bytes = png.toString('latin1');
    expect(parts(raw, echo.headers['content-type'] as string)).toEqual([
      `${disposition('avatar', 'a.png', 'image/png')}${bytes}`,
      `${disposition('scan', 'scan', 'text/plain')}scanned text`,
      `${disposition('legacy', 'l.bin', 'application/octet-stream')}${bytes}`,
      `${disposition('composed', 'c.bin', 'application/octet-stream')}${bytes}`,
      `${disposition('either', 'either', 'text/plain')}either text`,
      `${disposition('many', 'm1.bin', 'application/octet-stream')}${bytes}`,
      `${disposition('many', 'many', 'text/plain')}second text`,
      // contentEncoding: base64 means the part carries base64 text: sent as given, not decoded.
      `${disposition('encoded', 'e.png', 'image/png')}${png.toString('base64')}`,
      'Content-Disposition: form-data; name="note"\r\n\r\nplain',
    ]);
  });

  it('does send text/plain, octet-stream and */* bodies', async () => {
    const text = await v3.echo('text', { body: 'héllo' });
    expect([text.headers['content-type'], text.body]).toEqual(['text/plain', 'héllo']);
    const binary = await v3.echo('binary', { body: { base64: Buffer.from([0, 255]).toString('base64') } });
    expect([binary.headers['content-type'], binary.bodyBase64]).toEqual(['application/octet-stream', 'AP8=']);
    const anyText = await v3.echo('any', { body: 'raw' });
    expect([anyText.headers['content-type'], anyText.body]).toEqual(['text/plain; charset=utf-8', 'raw']);
    const anyJson = await v3.echo('any', { body: { a: 1 } });
    expect([anyJson.headers['content-type'], anyJson.body]).toEqual(['application/json', '{"a":1}']);
  });

  it('does prefer JSON among several request media types and sends no body when none is given', async () => {
    const echo = await v3.echo('choice', { body: { a: 1 } });
    expect(echo.headers['content-type']).toBe('application/json');
    const empty = await v3.echo('choice', {});
    expect([empty.headers['content-type'], empty.body]).toEqual([undefined, '']);
  });

  it('does turn Swagger 2.0 formData into form-urlencoded with collectionFormat', async () => {
    const echo = await v2.echo('swaggerForm', { body: { name: 'n', ids: [1, 2], tags: ['a', 'b'] } });
    expect(echo.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(echo.body).toBe('name=n&ids=1,2&tags=a&tags=b');
  });

  it('does turn Swagger 2.0 file formData into multipart', async () => {
    const echo = await v2.echo('swaggerUpload', {
      body: {
        note: 'hi',
        file: { base64: Buffer.from('abc').toString('base64'), filename: 'a.txt', contentType: 'text/plain' },
      },
    });
    expect(parts(echo.body, echo.headers['content-type'] as string)).toEqual([
      'Content-Disposition: form-data; name="note"\r\n\r\nhi',
      'Content-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nabc',
    ]);
  });

  it('does send a Swagger 2.0 body parameter as JSON and returns body null for 204', async () => {
    const result = await v2.call('swaggerBody', { body: { x: null } });
    expect(result.status).toBe(200);
    expect((result.body as { body: string; method: string }).body).toBe('{"x":null}');
    expect((result.body as { method: string }).method).toBe('PUT');
  });
});
