import { isDeepStrictEqual } from 'node:util';
import type { JSONSchema } from '@cyrnel/sdk';
import { isPlainObject } from '@cyrnel/sdk';

const MAX_DEPTH = 64;

function resolveRef(root: JSONSchema, ref: unknown): JSONSchema | undefined {
  if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isPlainObject(node) || !Object.hasOwn(node, token)) return undefined;
    node = node[token];
  }
  return isPlainObject(node) ? node : undefined;
}

function fill(root: JSONSchema, schema: unknown, value: unknown, depth: number): unknown {
  if (!isPlainObject(schema) || depth > MAX_DEPTH) return value;
  let result = value;
  const ref = resolveRef(root, schema.$ref);
  if (ref) result = fill(root, ref, result, depth + 1);
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) result = fill(root, part, result, depth + 1);
  }
  if (isPlainObject(result) && isPlainObject(schema.properties)) {
    for (const [key, propertySchema] of Object.entries(schema.properties)) {
      if (!isPlainObject(propertySchema)) continue;
      if (!Object.hasOwn(result, key)) {
        const fallback = defaultOf(root, propertySchema);
        if (fallback === undefined) continue;
        Object.defineProperty(result, key, {
          value: structuredClone(fallback),
          writable: true,
          enumerable: true,
          configurable: true,
        });
      }
      result[key] = fill(root, propertySchema, result[key], depth + 1);
    }
  }
  if (Array.isArray(result) && isPlainObject(schema.items)) {
    result = result.map((item) => fill(root, schema.items, item, depth + 1));
  }
  return result;
}

function defaultOf(root: JSONSchema, schema: Record<string, unknown>): unknown {
  if ('default' in schema) return schema.default;
  return resolveRef(root, schema.$ref)?.default;
}

/**
 * A copy of `value` with the `default` of every absent property filled in, recursively through
 * `properties`, `items`, `allOf` and local `$ref`s (config and secrets are validated
 * and handed to modules with defaults applied). `oneOf`/`anyOf` are left alone: which branch
 * applies is ambiguous.
 *
 * @example
 * ```ts
 * fillDefaults({ properties: { timeoutMs: { default: 30000 } } }, {}); // { timeoutMs: 30000 }
 * ```
 */
export function fillDefaults<T>(schema: JSONSchema, value: T): T {
  return fill(schema, schema, structuredClone(value), 0) as T;
}

/**
 * A copy of `value` without the top-level properties that equal their schema `default`: what is
 * stored of a config. Reads fill the defaults back in ({@link fillDefaults}), so a default that
 * changes later (an OpenAPI update with another server URL, a server flag behind a module's
 * default) reaches every owner that did not choose a value of its own. Nested defaults stay:
 * they are part of the object the owner set.
 *
 * @example
 * ```ts
 * stripDefaults({ properties: { timeoutMs: { default: 30000 } } }, { timeoutMs: 30000, a: 1 }); // { a: 1 }
 * ```
 */
export function stripDefaults<T extends Record<string, unknown>>(schema: JSONSchema, value: T): T {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    const fallback = isPlainObject(property) ? defaultOf(schema, property) : undefined;
    if (fallback !== undefined && isDeepStrictEqual(item, fallback)) continue;
    Object.defineProperty(kept, key, { value: item, writable: true, enumerable: true, configurable: true });
  }
  return kept as T;
}
