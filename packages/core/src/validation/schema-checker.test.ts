import { afterEach, describe, expect, it } from 'vitest';
import { createSchemaChecker, type SchemaChecker } from './schema-checker';

const checkers: SchemaChecker[] = [];
function checker(options?: Parameters<typeof createSchemaChecker>[0]): SchemaChecker {
  const created = createSchemaChecker(options);
  checkers.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(checkers.splice(0).map((c) => c.close()));
});

/** Resolves with the error a check rejects with, or undefined when it passes. */
async function outcome(promise: Promise<void>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('createSchemaChecker', () => {
  it('passes valid values and lists the problems of invalid ones', async () => {
    const schemas = checker();
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
      required: ['city'],
    };
    await expect(
      schemas.check({ field: 'parameters', schema, value: { city: 'Lima' } }),
    ).resolves.toBeUndefined();
    const error = await outcome(schemas.check({ field: 'parameters', schema, value: { days: 0 } }));
    expect(error).toMatchObject({
      code: 'invalid_request',
      details: [
        { path: '/', message: "must have required property 'city'" },
        { path: '/days', message: 'must be >= 1' },
      ],
    });
    expect((error as Error).message).toMatch(/^parameters does not match its schema: \//);
  });

  it('checks a catastrophic-backtracking pattern in linear time', async () => {
    const schemas = checker({ timeoutMs: 2000 });
    const schema = { type: 'string', pattern: '^(a+)+$' };
    // 'a' × 40 + '!' takes the backtracking engine longer than the age of the universe.
    const error = await outcome(schemas.check({ field: 'q', schema, value: `${'a'.repeat(40_000)}!` }));
    expect(error).toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/', message: expect.stringMatching(/pattern/) }],
    });
    await expect(schemas.check({ field: 'q', schema, value: 'aaaa' })).resolves.toBeUndefined();
  });

  it('checks format "url" without a regular expression', async () => {
    const schemas = checker();
    const schema = { type: 'string', format: 'url' };
    await expect(
      schemas.check({ field: 'u', schema, value: 'https://example.com/a?b=c' }),
    ).resolves.toBeUndefined();
    // A long host is the input that takes ajv-formats' URL regex exponential time.
    const host = 'a'.repeat(50_000);
    await expect(schemas.check({ field: 'u', schema, value: `http://${host}!` })).resolves.toBeUndefined();
    await expect(schemas.check({ field: 'u', schema, value: `http://${host} x` })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(schemas.check({ field: 'u', schema, value: 'not a url' })).rejects.toMatchObject({
      details: [{ path: '/', message: 'must match format "url"' }],
    });
  });

  it('translates \\u escapes for the linear engine and keeps look-around on the native one', async () => {
    const schemas = checker();
    await expect(
      schemas.check({ field: 'v', schema: { type: 'string', pattern: '^\\u0041\\u{42}$' }, value: 'AB' }),
    ).resolves.toBeUndefined();
    const lookahead = { type: 'string', pattern: '^A(?=B)' };
    await expect(schemas.check({ field: 'v', schema: lookahead, value: 'AB' })).resolves.toBeUndefined();
    await expect(schemas.check({ field: 'v', schema: lookahead, value: 'AC' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    // Distinct patterns in one schema stay distinct (Ajv shares compiled patterns by their text).
    const two = {
      type: 'object',
      properties: { a: { type: 'string', pattern: '^a+$' }, b: { type: 'string', pattern: '^b+$' } },
    };
    await expect(
      schemas.check({ field: 'v', schema: two, value: { a: 'aa', b: 'bb' } }),
    ).resolves.toBeUndefined();
  });

  it('ends a check that misses its deadline by replacing the worker, and goes on', async () => {
    const schemas = checker({ timeoutMs: 200, workers: 1 });
    // Look-ahead keeps this pattern on the backtracking engine: exponential in the input.
    const schema = { type: 'string', pattern: '^(?=(a+)+$)a' };
    await expect(schemas.check({ field: 'parameters', schema, value: 'aa' })).resolves.toBeUndefined();
    const started = Date.now();
    const error = await outcome(schemas.check({ field: 'parameters', schema, value: `${'a'.repeat(40)}!` }));
    expect(error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/could not be validated within 200 ms/),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(schemas.check({ field: 'parameters', schema, value: 'aaa' })).resolves.toBeUndefined();
  });

  it('answers a valid value of a plain schema on its own thread, without waiting for a busy worker', async () => {
    const schemas = checker({ timeoutMs: 500, workers: 1 });
    // The one worker is held by a check that runs to its deadline.
    const slow = { type: 'string', pattern: '^(?=(a+)+$)a' };
    const order: string[] = [];
    const held = outcome(schemas.check({ field: 'slow', schema: slow, value: `${'a'.repeat(40)}!` })).then(
      () => order.push('held'),
    );
    const plain = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
    await schemas.check({ field: 'parameters', schema: plain, value: { a: 1 } });
    order.push('plain valid');
    // An invalid value is the worker's, which words the problem: it waits its turn.
    const error = await outcome(schemas.check({ field: 'parameters', schema: plain, value: { a: 'x' } }));
    order.push('plain invalid');
    await held;
    expect(order).toEqual(['plain valid', 'held', 'plain invalid']);
    expect(error).toMatchObject({ code: 'invalid_request', details: [{ path: '/a' }] });
  });

  it('follows $schema: draft-04 exclusiveMinimum is a boolean, 2020-12 is the default', async () => {
    const schemas = checker();
    const draft04 = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'number',
      minimum: 0,
      exclusiveMinimum: false,
    };
    await expect(schemas.check({ field: 'n', schema: draft04, value: 0 })).resolves.toBeUndefined();
    const exclusive04 = { ...draft04, exclusiveMinimum: true };
    await expect(schemas.check({ field: 'n', schema: exclusive04, value: 0 })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    // draft-07's tuple form of items; 2020-12 spells it prefixItems.
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }],
      additionalItems: false,
    };
    await expect(schemas.check({ field: 'a', schema: draft07, value: ['x', 1] })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(schemas.check({ field: 'a', schema: draft07, value: ['x'] })).resolves.toBeUndefined();
    const prefix = { type: 'array', prefixItems: [{ type: 'string' }], items: false };
    await expect(schemas.check({ field: 'a', schema: prefix, value: ['x', 1] })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('reads a lazily given schema once per worker and key', async () => {
    const schemas = checker({ workers: 1 });
    let reads = 0;
    const schema = async () => {
      reads++;
      return { type: 'object', properties: { id: { type: 'integer' } } };
    };
    for (let i = 0; i < 5; i++) await schemas.check({ field: 'p', key: 'tool-1', schema, value: { id: i } });
    expect(reads).toBe(1);
    await expect(
      schemas.check({ field: 'p', key: 'tool-1', schema, value: { id: 'x' } }),
    ).rejects.toMatchObject({
      details: [{ path: '/id' }],
    });
  });

  it('stops its idle workers on request; the next check starts one, which is sent the schema again', async () => {
    const schemas = checker({ workers: 1 });
    let reads = 0;
    // A pattern: never checked on the host's own thread.
    const schema = async () => {
      reads++;
      return { type: 'string', pattern: '^[0-9]+$' };
    };
    await schemas.check({ field: 'n', schema, key: 'integer', value: '1' });
    await schemas.check({ field: 'n', schema, key: 'integer', value: '2' });
    expect(reads).toBe(1);
    schemas.releaseIdle();
    // A new worker: it holds no compiled schema, so the schema is read and sent again.
    await schemas.check({ field: 'n', schema, key: 'integer', value: '3' });
    expect(reads).toBe(2);
    const error = await outcome(schemas.check({ field: 'n', schema, key: 'integer', value: 'x' }));
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect(reads).toBe(2);
  });

  it('refuses a value nested beyond the structured clone and a schema Ajv cannot compile', async () => {
    const schemas = checker();
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    await expect(schemas.check({ field: 'parameters', schema: {}, value: deep })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/nested too deeply/),
    });
    await expect(
      schemas.check({
        field: 'parameters',
        schema: { $ref: '#/$defs/missing' },
        value: 1,
        schemaName: 'the inputSchema of a.b',
      }),
    ).rejects.toMatchObject({
      code: 'upstream_error',
      message: 'the inputSchema of a.b is not a usable JSON Schema',
    });
  });

  it('redacts messages on request and rejects checks after close', async () => {
    const schemas = createSchemaChecker();
    const error = await outcome(
      schemas.check({
        field: 'secrets',
        schema: { type: 'string', minLength: 10 },
        value: 'short',
        redact: true,
      }),
    );
    expect(error).toMatchObject({ details: [{ path: '/', message: 'does not satisfy "minLength"' }] });
    // A missing property is named by the schema, not the value: redaction keeps its name.
    const missing = await outcome(
      schemas.check({
        field: 'secrets',
        schema: {
          type: 'object',
          properties: { api_key: { type: 'string' }, basic: { type: 'object', required: ['password'] } },
          required: ['api_key'],
        },
        value: { basic: { username: 'hunter2-user' }, extra: 'hunter2' },
        redact: true,
      }),
    );
    expect((missing as { details: unknown }).details).toEqual([
      { path: '/', message: "must have required property 'api_key'" },
      { path: '/basic', message: "must have required property 'password'" },
    ]);
    expect(JSON.stringify(missing)).not.toContain('hunter2');
    await schemas.close();
    await expect(schemas.check({ field: 'x', schema: {}, value: 1 })).rejects.toThrow(/closed/);
  });
});
