import { ValidationError } from '@cyrnel/core';
import type { JsonPatch, ValidationIssue } from '@cyrnel/sdk/api';
import { isPlainObject } from './body-schema';

const OPERATION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  add: ['path', 'value'],
  remove: ['path'],
  replace: ['path', 'value'],
  move: ['from', 'path'],
  copy: ['from', 'path'],
  test: ['path', 'value'],
};

/** Validate an RFC 6902 JSON Patch document's shape (the host applies it and validates the result). */
export function validateJsonPatch(body: unknown): JsonPatch {
  if (!Array.isArray(body)) {
    throw new ValidationError('the request body must be a JSON Patch array (RFC 6902)', [
      { path: '', message: 'must be an array of operations' },
    ]);
  }
  const issues: ValidationIssue[] = [];
  body.forEach((operation: unknown, index) => {
    if (!isPlainObject(operation)) {
      issues.push({ path: `/${index}`, message: 'must be an object' });
      return;
    }
    const fields = typeof operation.op === 'string' ? OPERATION_FIELDS[operation.op] : undefined;
    if (!fields) {
      issues.push({ path: `/${index}/op`, message: 'must be one of add, remove, replace, move, copy, test' });
      return;
    }
    for (const key of Object.keys(operation)) {
      if (key !== 'op' && !fields.includes(key))
        issues.push({ path: `/${index}/${key}`, message: 'unknown field' });
    }
    for (const field of fields) {
      if (!(field in operation)) issues.push({ path: `/${index}/${field}`, message: 'is required' });
      else if (field !== 'value' && (typeof operation[field] !== 'string' || !isPointer(operation[field]))) {
        issues.push({ path: `/${index}/${field}`, message: 'must be a JSON pointer string' });
      }
    }
  });
  if (issues.length > 0) {
    throw new ValidationError(
      `invalid JSON Patch: ${issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
      issues,
    );
  }
  return body as JsonPatch;
}

function isPointer(value: unknown): boolean {
  return typeof value === 'string' && (value === '' || value.startsWith('/'));
}
