import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema';
import type { JSONSchema } from '@cyrnel/sdk';
import type { ValidationIssue } from '@cyrnel/sdk/api';
import { UpstreamError, ValidationError } from './errors';
import { fillDefaults } from './fill-defaults';

/** Options of {@link validateAgainstSchema}. */
export interface SchemaCheckOptions {
  /** Names the value in messages, e.g. `config` or `parameters`. */
  readonly field: string;
  /** Fill `default`s before validating (config and secrets; not tool parameters). */
  readonly applyDefaults?: boolean;
  /** Leave the validator's messages out of issues: they may quote the (secret) value. */
  readonly redact?: boolean;
}

function pointerOf(location: string): string {
  return location.startsWith('#') ? location.slice(1) : location;
}

/** Leaf problems only (deepest first), one per location and keyword. */
function toIssues(errors: readonly OutputUnit[], redact: boolean): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    // Composite keywords only say "a subschema failed"; the concrete problems follow separately.
    if (
      ['properties', 'items', 'allOf', '$ref', 'additionalProperties'].includes(error.keyword) &&
      errors.length > 1
    ) {
      continue;
    }
    const path = pointerOf(error.instanceLocation);
    const message = redact ? `does not satisfy "${error.keyword}"` : error.error;
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: path === '' ? '/' : path, message });
  }
  return issues.slice(0, 50);
}

/** Compile a schema once; an unusable schema is the module's fault (502). */
export function compileSchema(schema: JSONSchema, what: string): Validator {
  try {
    return new Validator(schema as Schema, '2020-12', false);
  } catch (error) {
    throw new UpstreamError(`${what} is not a usable JSON Schema`, { cause: error });
  }
}

/** Validate with a compiled validator; throw a `ValidationError` listing the problems. */
export function checkWithValidator(validator: Validator, value: unknown, options: SchemaCheckOptions): void {
  let result: ReturnType<Validator['validate']>;
  try {
    result = validator.validate(value);
  } catch (error) {
    throw new UpstreamError(`the schema of ${options.field} cannot be evaluated`, { cause: error });
  }
  if (result.valid) return;
  const issues = toIssues(result.errors, options.redact ?? false);
  const first = issues[0];
  const summary = first ? `: ${first.path} ${first.message}` : '';
  throw new ValidationError(`${options.field} does not match its schema${summary}`, issues);
}

/**
 * Validate `value` against `schema` (draft 2020-12, as cfworker implements it), optionally after
 * filling defaults, and answer the value that validated.
 */
export function validateAgainstSchema<T>(schema: JSONSchema, value: T, options: SchemaCheckOptions): T {
  const candidate = options.applyDefaults ? fillDefaults(schema, value) : value;
  checkWithValidator(compileSchema(schema, `the schema of ${options.field}`), candidate, options);
  return candidate;
}
