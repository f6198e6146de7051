import type { JSONSchema } from '@cyrnel/sdk';
import { fillDefaults } from './fill-defaults';
import type { SchemaChecker } from './schema-checker';

/** Options of {@link validateAgainstSchema}. */
export interface SchemaCheckOptions {
  /** Names the value in messages, e.g. `config` or `parameters`. */
  readonly field: string;
  /** Fill `default`s before validating (config and secrets; not tool parameters). */
  readonly applyDefaults?: boolean;
  /** Leave the validator's messages out of issues: they may describe the (secret) value. */
  readonly redact?: boolean;
}

/**
 * Validate `value` against `schema` (the draft its `$schema` names, 2020-12 by default) off the
 * main thread, optionally after filling defaults, and answer the value that validated.
 */
export async function validateAgainstSchema<T>(
  checker: SchemaChecker,
  schema: JSONSchema,
  value: T,
  options: SchemaCheckOptions,
): Promise<T> {
  const candidate = options.applyDefaults ? fillDefaults(schema, value) : value;
  await checker.check({ field: options.field, schema, value: candidate, redact: options.redact ?? false });
  return candidate;
}
