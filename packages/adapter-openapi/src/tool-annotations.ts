import { isPlainObject, type ToolAnnotations } from '@cyrnel/sdk';

/** The operation extension that states a tool's annotations, overriding what its method says. */
export const ANNOTATIONS_EXTENSION = 'x-cyrnel-annotations';

// Written in this order whatever the order of the extension's keys, so the definition (and its
// hash) does not change when a document only reorders them.
const KEYS = ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const;

// RFC 9110 §9.2: GET, HEAD, OPTIONS and TRACE are safe (read-only) and idempotent; PUT and DELETE
// are idempotent; DELETE removes the target resource. Every other method changes state as far as
// the method tells, so `readOnly: false` is stated: it is what HTTP promises, not a guess. Whether
// a POST or PATCH destroys data, or whether any operation reaches an open world, the method does
// not say: left unknown.
const BY_METHOD: Readonly<Record<string, ToolAnnotations>> = {
  get: { readOnly: true, idempotent: true },
  head: { readOnly: true, idempotent: true },
  options: { readOnly: true, idempotent: true },
  trace: { readOnly: true, idempotent: true },
  put: { readOnly: false, idempotent: true },
  delete: { readOnly: false, destructive: true, idempotent: true },
  post: { readOnly: false },
  patch: { readOnly: false },
};

/**
 * A tool's annotations from its operation: derived from the HTTP method, then overridden key by
 * key by the operation's `x-cyrnel-annotations` object. What the extension holds that is not one
 * of the four keys with a boolean value is ignored (as the adapter ignores other malformed
 * optional fields): it never fails the definition, and the derived value stays.
 *
 * @example
 * ```ts
 * toolAnnotations('delete', {}); // { readOnly: false, destructive: true, idempotent: true }
 * toolAnnotations('post', { 'x-cyrnel-annotations': { readOnly: true } }); // { readOnly: true }
 * ```
 */
export function toolAnnotations(
  method: string,
  operation: Readonly<Record<string, unknown>>,
): ToolAnnotations {
  const derived = BY_METHOD[method.toLowerCase()] ?? {};
  const extension = Object.hasOwn(operation, ANNOTATIONS_EXTENSION)
    ? operation[ANNOTATIONS_EXTENSION]
    : undefined;
  const stated = isPlainObject(extension) ? extension : {};
  const annotations: ToolAnnotations = {};
  for (const key of KEYS) {
    const override = Object.hasOwn(stated, key) ? stated[key] : undefined;
    const value = typeof override === 'boolean' ? override : derived[key];
    if (value !== undefined) annotations[key] = value;
  }
  return annotations;
}
