import { PAGE_QUERY } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { parseProcessId } from './params';
import { parseQuery } from './query';
import { readJsonBody } from './read-json-body';

const query = (search: string) =>
  parseQuery<Record<string, unknown>>(`http://x/p?${search}`, {
    params: { ...PAGE_QUERY, enabled: { type: 'boolean' }, type: { type: 'string' } },
  });

describe('parseQuery', () => {
  it('defaults limit to 20, clamps above 100 and parses booleans and strings', () => {
    expect(query('')).toEqual({ limit: 20 });
    expect(query('limit=500&enabled=false&type=adapter&cursor=abc')).toEqual({
      limit: 100,
      enabled: false,
      type: 'adapter',
      cursor: 'abc',
    });
  });

  it.each([
    'limit=0',
    'limit=-1',
    'limit=1.5',
    'limit=abc',
    'enabled=1',
    'enabled=TRUE',
    'nope=1',
    'limit=1&limit=2',
  ])('refuses %s with invalid_request naming the parameter', (search) => {
    expect(() => query(search)).toThrowError(expect.objectContaining({ code: 'invalid_request' }));
    try {
      query(search);
    } catch (error) {
      expect((error as Error).message).toContain(search.split('=')[0]);
    }
  });
  it('reads whole numbers and switches (`1`/`0` too), refusing anything else', () => {
    const spec = { params: { after: { type: 'integer' }, follow: { type: 'switch' } } } as const;
    const read = (search: string) => parseQuery(`http://x/p?${search}`, spec);
    expect(read('after=0&follow=1')).toEqual({ after: 0, follow: true });
    expect(read('after=42&follow=false')).toEqual({ after: 42, follow: false });
    expect(read('follow=true')).toEqual({ follow: true });
    expect(read('follow=0')).toEqual({ follow: false });
    for (const bad of ['after=-1', 'after=1.5', 'after=x', 'after=99999999999999999999', 'follow=yes']) {
      expect(() => read(bad), bad).toThrowError(
        expect.objectContaining({
          code: 'invalid_request',
          message: expect.stringContaining(bad.split('=')[0] as string),
        }),
      );
    }
  });

  it('reads a list parameter repeated or comma separated, and leaves other parameters alone when asked', () => {
    const lists = { params: { tools: { type: 'list' } }, others: 'ignored' } as const;
    expect(parseQuery(`http://x/p?tools=a.b,c.d&tools=e.f&other=1`, lists)).toEqual({
      tools: ['a.b', 'c.d', 'e.f'],
    });
    expect(parseQuery(`http://x/p?tools=`, lists)).toEqual({ tools: [''] });
    expect(parseQuery(`http://x/p`, lists)).toEqual({});
  });
});

describe('parseProcessId', () => {
  it('accepts positive integers and refuses anything else', () => {
    expect(parseProcessId('42')).toBe(42);
    for (const bad of ['0', '-1', '1.5', 'abc', '01', '99999999999999999999']) {
      expect(() => parseProcessId(bad), bad).toThrow(/positive integer/);
    }
  });
});

describe('readJsonBody', () => {
  const post = (body: string | ReadableStream | null, headers: Record<string, string> = {}) =>
    new Request('http://x/', {
      method: 'POST',
      body,
      headers,
      ...(body ? { duplex: 'half' } : {}),
    } as RequestInit);

  it('parses JSON and uses emptyAs for empty bodies', async () => {
    await expect(readJsonBody(post('{"a":1}'), { maxDepth: 64, maxElements: 50_000 })).resolves.toEqual({
      a: 1,
    });
    await expect(
      readJsonBody(post(null), { maxDepth: 64, maxElements: 50_000, emptyAs: {} }),
    ).resolves.toEqual({});
  });

  it('refuses malformed and missing bodies', async () => {
    await expect(readJsonBody(post('{"a":'), { maxDepth: 64, maxElements: 50_000 })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/malformed JSON/),
    });
    await expect(readJsonBody(post(null), { maxDepth: 64, maxElements: 50_000 })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('refuses bodies nested deeper than maxDepth with a 400 naming the limit, before parsing', async () => {
    const deep = (depth: number) => `{"v":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    await expect(readJsonBody(post(deep(8)), { maxDepth: 8, maxElements: 50_000 })).resolves.toBeTypeOf(
      'object',
    );
    await expect(readJsonBody(post(deep(9)), { maxDepth: 8, maxElements: 50_000 })).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: expect.stringContaining('deeper than 8 levels'),
    });
    // Far deeper than V8's recursion limits: still a 400, never a RangeError.
    await expect(
      readJsonBody(post(deep(200_000)), { maxDepth: 64, maxElements: 50_000 }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('refuses bodies with more than maxElements elements with a 400 naming the limit, before parsing', async () => {
    const values = (count: number) => `{"v":[${Array(count).fill('{}').join(',')}]}`;
    const limits = { maxDepth: 64, maxElements: 1000 };
    await expect(readJsonBody(post(values(499)), limits)).resolves.toBeTypeOf('object');
    await expect(readJsonBody(post(values(1_000_000)), limits)).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: expect.stringContaining('more than 1000 elements'),
    });
  });
});
