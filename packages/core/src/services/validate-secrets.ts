import type { JSONSchema } from '@cyrnel/sdk';
import type { ValidationIssue } from '@cyrnel/sdk/api';
import { cyrnelError, isCyrnelError } from '../errors';
import type { SchemaChecker } from '../validation/schema-checker';
import { validateAgainstSchema } from '../validation/schema-validation';

// The redacted `required` issue (validation-worker.ts): the property name comes from the schema.
const REQUIRED = /^must have required property '(.*)'$/s;

/** The secrets a list of issues says are missing, as pointers below the secrets object (`api_key`, `basic/password`). */
export function missingSecrets(issues: readonly ValidationIssue[]): string[] {
  const names: string[] = [];
  for (const { path, message } of issues) {
    const property = REQUIRED.exec(message)?.[1];
    if (property === undefined) continue;
    const name = path === '/' || path === '' ? property : `${path.replace(/^\//, '')}/${property}`;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Validate secrets (defaults filled) with redacted messages and answer the value that validated. When
 * a required secret is absent the error says which (`missing secret 'api_key'`, `missing secrets 'a',
 * 'b'`), never a value; `field` names the owner otherwise left implicit (`secrets of module m`).
 */
export async function validateSecrets<T>(
  checker: SchemaChecker,
  schema: JSONSchema,
  value: T,
  field = 'secrets',
): Promise<T> {
  try {
    return await validateAgainstSchema(checker, schema, value, { field, applyDefaults: true, redact: true });
  } catch (error) {
    const issues =
      isCyrnelError(error) && error.code === 'invalid_request' && Array.isArray(error.details)
        ? error.details
        : [];
    const missing = missingSecrets(issues as ValidationIssue[]);
    if (missing.length === 0) throw error;
    const names = missing.map((name) => `'${name}'`).join(', ');
    const what = `missing secret${missing.length > 1 ? 's' : ''} ${names}`;
    const others =
      issues.length - (issues as ValidationIssue[]).filter((i) => REQUIRED.test(i.message)).length;
    const more = others > 0 ? ` (and ${others} other problem${others > 1 ? 's' : ''}, see details)` : '';
    const owner = field === 'secrets' ? '' : `${field}: `;
    throw cyrnelError('missing_secret', `${owner}${what}${more}`, {
      details: issues as ValidationIssue[],
      cause: error,
    });
  }
}
