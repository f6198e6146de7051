import { isStructuralKey } from '../observed/shape-keys';

/** Deepest level described; below it a value is `"…"`. */
const MAX_DEPTH = 8;
/** Keys described per object; the rest are counted under `"…"`. */
const MAX_KEYS = 32;
/** Longest key kept (a longer one is data). */
const MAX_KEY_LENGTH = 64;
/** Longest shape text; past it the shape is cut to `"…"`. */
export const MAX_SHAPE_CHARS = 2048;

/**
 * The shape of a tool call's parameters: their keys and the types of their values, every value
 * replaced by its type (`"string"`, `"number"`, `"boolean"`, `"null"`), an array by the shape of its
 * first element. An object with a key that looks like data (an e-mail address, an id, a path)
 * becomes `{"<key>": <shape of its first value>}`, so no value reaches the shape through a key.
 * Bounded (8 levels, 32 keys an object, 2,048 characters).
 *
 * @example
 * ```ts
 * argumentShape({ userId: 42, tags: ['a'], by: { 'ann@example.com': true } });
 * // '{"userId":"number","tags":["string"],"by":{"<key>":"boolean"}}'
 * ```
 */
export function argumentShape(parameters: unknown): string {
  const text = JSON.stringify(shapeOf(parameters, 0)) ?? '"undefined"';
  return text.length <= MAX_SHAPE_CHARS ? text : '"…"';
}

function shapeOf(value: unknown, depth: number): unknown {
  if (value === null) return 'null';
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0], depth + 1)];
  if (typeof value !== 'object') return typeof value;
  const keys = Object.keys(value);
  const record = value as Record<string, unknown>;
  if (!keys.every((key) => isStructuralKey(key, MAX_KEY_LENGTH)))
    return keys.length === 0 ? {} : { '<key>': shapeOf(record[keys[0] as string], depth + 1) };
  const shape: Record<string, unknown> = {};
  for (const key of keys.slice(0, MAX_KEYS)) shape[key] = shapeOf(record[key], depth + 1);
  if (keys.length > MAX_KEYS) shape['…'] = `${keys.length - MAX_KEYS} more`;
  return shape;
}
