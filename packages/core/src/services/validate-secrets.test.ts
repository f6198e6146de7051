import { afterAll, describe, expect, it } from 'vitest';
import { type CyrnelError, isCyrnelError } from '../errors';
import { createSchemaChecker } from '../validation/schema-checker';
import { validateSecrets } from './validate-secrets';

const checker = createSchemaChecker({ workers: 1 });
afterAll(() => checker.close());

const schema = {
  type: 'object',
  properties: {
    api_key: { type: 'string', minLength: 8 },
    region: { type: 'string', default: 'eu' },
    basic: {
      type: 'object',
      properties: { username: { type: 'string' }, password: { type: 'string' } },
      required: ['username', 'password'],
    },
  },
  required: ['api_key'],
  additionalProperties: false,
};

async function failure(value: Record<string, unknown>, field?: string): Promise<CyrnelError> {
  const error = await validateSecrets(checker, schema, value, field).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isCyrnelError(error)).toBe(true);
  return error as CyrnelError;
}

describe('validateSecrets', () => {
  it('does answer the secrets with defaults filled when they validate', async () => {
    expect(await validateSecrets(checker, schema, { api_key: 'k-12345678' })).toEqual({
      api_key: 'k-12345678',
      region: 'eu',
    });
  });

  it('does name a missing required secret, never a value', async () => {
    const error = await failure({});
    expect(error.message).toBe("missing secret 'api_key'");
    expect(error).toMatchObject({ reason: 'missing_secret', code: 'invalid_request', status: 400 });
    expect(error.details).toEqual([{ path: '/', message: "must have required property 'api_key'" }]);
  });

  it('does list several missing secrets, nested ones as pointers below the secrets', async () => {
    const error = await failure({ basic: {} });
    expect(error.message).toBe("missing secrets 'api_key', 'basic/username', 'basic/password'");
  });

  it('does count the other problems without describing the values', async () => {
    const error = await failure({ region: 'sk-live-hunter2', basic: { username: 7 } }, 'secrets of module m');
    expect(error.message).toBe(
      "secrets of module m: missing secrets 'api_key', 'basic/password' (and 1 other problem, see details)",
    );
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('hunter2');
  });

  it('does keep the redacted schema error when nothing is missing', async () => {
    const error = await failure({ api_key: 'hunter2' });
    expect(error.message).toBe('secrets does not match its schema: /api_key does not satisfy "minLength"');
    expect(JSON.stringify(error.details)).not.toContain('hunter2');
  });
});
