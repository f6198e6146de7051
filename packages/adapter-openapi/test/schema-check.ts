import { createSchemaChecker, isCyrnelError, type SchemaChecker } from '@cyrnel/core';
import type { JSONSchema } from '@cyrnel/sdk';
import { afterAll, expect } from 'vitest';

/**
 * The host's own schema checker (Ajv in worker threads, RE2 patterns, `$schema` drafts) for one
 * test file: generated schemas are proven against the engine that validates tool parameters,
 * config and secrets in a running cyrnel. Its workers stop after the file's tests.
 */
export function useSchemaChecker(): SchemaChecker {
  const checker = createSchemaChecker();
  afterAll(() => checker.close());
  return checker;
}

/**
 * What the checker says about `value`: `[]` when valid, else the problems as `path: message`.
 * Anything but a normal answer — a schema that does not compile (502 `upstream_error`), a check
 * past its deadline — rejects, naming the schema.
 */
export async function problemsOf(
  checker: SchemaChecker,
  schema: unknown,
  value: unknown,
  name = 'schema',
): Promise<string[]> {
  try {
    await checker.check({ field: 'value', schema: schema as JSONSchema, value, schemaName: name });
    return [];
  } catch (error) {
    const normal =
      isCyrnelError(error) &&
      error.code === 'invalid_request' &&
      error.message.startsWith('value does not match its schema');
    if (!normal) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}${cause}`, {
        cause: error,
      });
    }
    const issues = (error.details ?? []) as { path: string; message: string }[];
    return issues.map((issue) => `${issue.path}: ${issue.message}`);
  }
}

/** Assert `value` is valid against `schema` in the host's checker. */
export async function expectValid(checker: SchemaChecker, schema: unknown, value: unknown): Promise<void> {
  expect(await problemsOf(checker, schema, value)).toEqual([]);
}

/** Whether `value` is valid against `schema` in the host's checker (a broken schema rejects). */
export async function isValid(checker: SchemaChecker, schema: unknown, value: unknown): Promise<boolean> {
  return (await problemsOf(checker, schema, value)).length === 0;
}
