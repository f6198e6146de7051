import { ANY_SHAPE, mergeShapes } from './merge-shapes';
import type { ObservedLimits } from './observed-limits';
import { type ObservedShape, propertiesRecord } from './observed-shape';
import { isStructuralKey } from './shape-keys';

/** Options of {@link observeShape}. */
export interface ObserveShapeOptions {
  readonly limits: ObservedLimits;
  /** Whether a key holds a secret the host knows (such an object is observed as a map). */
  readonly isSecret?: (key: string) => boolean;
}

// Shared leaves: shapes are never changed once made.
const SCALARS = {
  null: Object.freeze({ type: 'null' }),
  boolean: Object.freeze({ type: 'boolean' }),
  number: Object.freeze({ type: 'number' }),
  string: Object.freeze({ type: 'string' }),
} as const satisfies Record<string, ObservedShape>;

/** The walk ran past its budget of visits. */
const OVERFLOW = Symbol('overflow');
/** Not a JSON value (a function, a class instance, undefined, …): the answer is not observed. */
const FOREIGN = Symbol('foreign');
type Walked = ObservedShape | typeof OVERFLOW | typeof FOREIGN;

/** `count` indices spread over `length` elements, the first and the last among them. */
function sampleIndices(length: number, count: number): number[] {
  if (length <= count) return Array.from({ length }, (_, index) => index);
  if (count <= 1) return [0];
  return Array.from({ length: count }, (_, step) => Math.floor((step * (length - 1)) / (count - 1)));
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** One walk of a value with one sample size and one budget of visits. */
function walk(value: unknown, sample: number, options: ObserveShapeOptions): Walked {
  const { limits, isSecret } = options;
  let visits = 0;
  const merged = (sofar: ObservedShape | undefined, next: ObservedShape) =>
    sofar === undefined ? next : mergeShapes(sofar, next, limits);

  const array = (items: readonly unknown[], depth: number): Walked => {
    let shape: ObservedShape | undefined;
    for (const index of sampleIndices(items.length, sample)) {
      const item = visit(items[index], depth + 1);
      if (typeof item === 'symbol') return item;
      shape = merged(shape, item);
    }
    return shape === undefined ? { type: 'array' } : { type: 'array', items: shape };
  };

  const object = (record: Record<string, unknown>, depth: number): Walked => {
    const keys: string[] = [];
    let map = false;
    // Stops at the first key past the limit: the rest is never looked at.
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      if (keys.length === limits.maxProperties) {
        map = true;
        break;
      }
      if (!isStructuralKey(key, limits.maxKeyLength, isSecret)) map = true;
      keys.push(key);
    }
    if (map) {
      let values: ObservedShape | undefined;
      for (const key of keys.slice(0, sample)) {
        const value = visit(record[key], depth + 1);
        if (typeof value === 'symbol') return value;
        values = merged(values, value);
      }
      return { type: 'object', additionalProperties: values ?? ANY_SHAPE };
    }
    const properties = propertiesRecord();
    for (const key of keys) {
      const value = visit(record[key], depth + 1);
      if (typeof value === 'symbol') return value;
      properties[key] = value;
    }
    return { type: 'object', properties, ...(keys.length > 0 ? { required: keys } : {}) };
  };

  const visit = (current: unknown, depth: number): Walked => {
    if (++visits > limits.maxVisits) return OVERFLOW;
    switch (typeof current) {
      case 'string':
      case 'number':
      case 'boolean':
        return SCALARS[typeof current as 'string' | 'number' | 'boolean'];
      case 'object': {
        if (current === null) return SCALARS.null;
        const isArray = Array.isArray(current);
        if (!isArray && !isPlainObject(current)) return FOREIGN;
        // Deeper than the limit: anything, whatever it holds.
        if (depth >= limits.maxDepth) return ANY_SHAPE;
        return isArray ? array(current, depth) : object(current as Record<string, unknown>, depth);
      }
      default:
        return FOREIGN;
    }
  };
  return visit(value, 0);
}

/**
 * The shape of one answer, by a bounded walk: types only, arrays and maps sampled (`samples`, one
 * try after the other while a walk runs past `maxVisits`), containers past `maxDepth` as `{}`, an
 * object with more than `maxProperties` keys or with a key that is not structural
 * (`isStructuralKey`) as a map. Undefined when no try fits the budget, or the value is not JSON
 * (a class instance, a function, `undefined`): such an answer teaches nothing. Not bounded in
 * nodes (the walk is; `boundShape` its merge).
 *
 * @example
 * ```ts
 * observeShape({ id: 7, tags: ['a'] }, { limits: OBSERVED_LIMITS });
 * // { type: 'object', properties: { id: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['id', 'tags'] }
 * ```
 */
export function observeShape(value: unknown, options: ObserveShapeOptions): ObservedShape | undefined {
  for (const sample of options.limits.samples) {
    const shape = walk(value, Math.max(1, sample), options);
    if (shape === FOREIGN) return undefined;
    if (shape !== OVERFLOW) return shape;
  }
  return undefined;
}
