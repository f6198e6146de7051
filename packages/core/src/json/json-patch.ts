import { isPlainObject } from '@cyrnel/sdk';
import type { JsonPatch, ValidationIssue } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import { parseJsonPointer } from './json-pointer';
import { isDeepEqual } from './json-values';

type Container = Record<string, unknown> | unknown[];

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

class PatchFailure extends Error {}

function fail(message: string): never {
  throw new PatchFailure(message);
}

function pointerTokens(pointer: unknown, field: 'path' | 'from'): string[] {
  if (typeof pointer !== 'string') fail(`${field} must be a string`);
  const tokens = parseJsonPointer(pointer);
  if (!tokens) fail(`${field} "${pointer}" is not a JSON pointer`);
  return tokens;
}

/** Array index of `token` for reading or replacing; `-` and leading zeros are refused (RFC 6901 §4). */
function arrayIndex(array: unknown[], token: string, allowEnd: boolean): number {
  if (token === '-' && allowEnd) return array.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) fail(`"${token}" is not an array index`);
  const index = Number(token);
  if (index > array.length || (!allowEnd && index === array.length)) fail(`index ${token} is out of range`);
  return index;
}

function resolve(document: unknown, tokens: readonly string[]): unknown {
  let node = document;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false)];
    else if (isPlainObject(node) && Object.hasOwn(node, token)) node = node[token];
    else fail('path does not exist');
  }
  return node;
}

function parentOf(document: unknown, tokens: readonly string[]): Container {
  const parent = resolve(document, tokens.slice(0, -1));
  if (!Array.isArray(parent) && !isPlainObject(parent)) fail('parent is not an object or array');
  return parent;
}

// defineProperty, not assignment: a `__proto__` key must become data, never a prototype change.
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function add(document: unknown, tokens: readonly string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(document, tokens);
  const key = tokens[tokens.length - 1] as string;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else setOwn(parent, key, value);
  return document;
}

function remove(document: unknown, tokens: readonly string[]): unknown {
  if (tokens.length === 0) fail('the whole document cannot be removed');
  const parent = parentOf(document, tokens);
  const key = tokens[tokens.length - 1] as string;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false), 1);
  else if (Object.hasOwn(parent, key)) delete parent[key];
  else fail('path does not exist');
  return document;
}

function applyOne(document: unknown, operation: Record<string, unknown>): unknown {
  const { op } = operation;
  if (typeof op !== 'string' || !OPS.has(op))
    fail('op must be one of add, remove, replace, move, copy, test');
  const path = pointerTokens(operation.path, 'path');
  if ((op === 'add' || op === 'replace' || op === 'test') && !('value' in operation))
    fail('value is missing');
  switch (op) {
    case 'add':
      return add(document, path, structuredClone(operation.value));
    case 'remove':
      return remove(document, path);
    case 'replace':
      resolve(document, path);
      if (path.length === 0) return structuredClone(operation.value);
      return add(remove(document, path), path, structuredClone(operation.value));
    case 'test':
      if (!isDeepEqual(resolve(document, path), operation.value)) fail('test failed: values differ');
      return document;
    default: {
      const from = pointerTokens(operation.from, 'from');
      const value = resolve(document, from);
      if (op === 'copy') return add(document, path, structuredClone(value));
      if (from.length < path.length && from.every((token, i) => token === path[i])) {
        fail('a value cannot be moved into itself');
      }
      return add(remove(document, from), path, value);
    }
  }
}

/**
 * Apply an RFC 6902 JSON Patch to a copy of `document`; the input is never modified.
 * Throws a 400 `invalid_request` naming the failing operation's index (issue path `/<index>`).
 * Messages never include values: patches may carry secrets.
 *
 * @example
 * ```ts
 * applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/b', value: 2 }]); // { a: 1, b: 2 }
 * ```
 */
export function applyJsonPatch(
  document: unknown,
  patch: unknown,
  field = 'patch',
  options: { allowTest?: boolean } = {},
): unknown {
  if (!Array.isArray(patch)) throw cyrnelError('invalid_request', `${field} must be a JSON Patch array`);
  let result = structuredClone(document);
  patch.forEach((operation: unknown, index) => {
    try {
      if (!isPlainObject(operation)) fail('operation must be an object');
      // Secrets refuse `test`: its outcome would reveal whether a stored secret equals a guess.
      if (operation.op === 'test' && options.allowTest === false) fail('test is not allowed here');
      result = applyOne(result, operation);
    } catch (error) {
      if (!(error instanceof PatchFailure)) throw error;
      const op = isPlainObject(operation) && typeof operation.op === 'string' ? operation.op : '?';
      throw cyrnelError(
        'invalid_request',
        `${field} operation ${index} (${op.slice(0, 20)}): ${error.message}`,
        { details: [{ path: `/${index}`, message: error.message }] },
      );
    }
  });
  return result;
}

const OPERATION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  add: ['path', 'value'],
  remove: ['path'],
  replace: ['path', 'value'],
  move: ['from', 'path'],
  copy: ['from', 'path'],
  test: ['path', 'value'],
};

/**
 * Check an RFC 6902 JSON Patch document's shape before anything is looked up (every front end's
 * `PATCH .../config` and `.../secrets` body); {@link applyJsonPatch} then applies it and the
 * result is validated against the owner's schema. Issues name each operation (`/0/value is required`).
 *
 * @example
 * ```ts
 * requireJsonPatch([{ op: 'remove', path: '/a' }]); // the patch, typed
 * requireJsonPatch({ op: 'add' }); // 400 invalid_request: the request body must be a JSON Patch array (RFC 6902)
 * ```
 */
export function requireJsonPatch(body: unknown): JsonPatch {
  if (!Array.isArray(body)) {
    throw cyrnelError('invalid_request', 'the request body must be a JSON Patch array (RFC 6902)', {
      details: [{ path: '', message: 'must be an array of operations' }],
    });
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
    throw cyrnelError(
      'invalid_request',
      `invalid JSON Patch: ${issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
      { details: issues },
    );
  }
  return body as JsonPatch;
}

function isPointer(value: unknown): boolean {
  return typeof value === 'string' && (value === '' || value.startsWith('/'));
}
