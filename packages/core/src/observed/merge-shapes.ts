import type { ObservedLimits } from './observed-limits';
import {
  type ArrayShape,
  type ObjectShape,
  type ObservedShape,
  propertiesRecord,
  shapeKind,
  type UnionShape,
} from './observed-shape';

/** Anything. */
export const ANY_SHAPE: ObservedShape = Object.freeze({});

/** The limits a merge needs. */
export type MergeLimits = Pick<ObservedLimits, 'maxProperties' | 'maxVariants'>;

const isMap = (shape: ObjectShape) =>
  shape.properties === undefined && shape.additionalProperties !== undefined;

/**
 * The union of two shapes: what either says, as generally as needed. It answers `a` itself (the
 * same object) when `b` adds nothing to it, so a caller sees "unchanged" without comparing; a
 * property is required only if both require it; objects whose keys together are more than
 * `maxProperties` become a map; more than `maxVariants` kinds at one place become `{}`. Not
 * bounded in nodes: {@link boundShape} the result.
 *
 * @example
 * ```ts
 * mergeShapes({ type: 'string' }, { type: 'null' }, OBSERVED_LIMITS); // { anyOf: [{ type: 'string' }, { type: 'null' }] }
 * ```
 */
export function mergeShapes(a: ObservedShape, b: ObservedShape, limits: MergeLimits): ObservedShape {
  if (a === b) return a;
  const kindA = shapeKind(a);
  const kindB = shapeKind(b);
  if (kindA === 'any') return a;
  if (kindB === 'any') return b;
  if (kindA === 'union' || kindB === 'union' || kindA !== kindB) return mergeVariants(a, b, limits);
  if (kindA === 'array') return mergeArrays(a as ArrayShape, b as ArrayShape, limits);
  if (kindA === 'object') return mergeObjects(a as ObjectShape, b as ObjectShape, limits);
  return a;
}

function mergeVariants(a: ObservedShape, b: ObservedShape, limits: MergeLimits): ObservedShape {
  const out = [...((a as UnionShape).anyOf ?? [a])];
  let changed = false;
  for (const variant of (b as UnionShape).anyOf ?? [b]) {
    const kind = shapeKind(variant);
    if (kind === 'any' || kind === 'union') return ANY_SHAPE;
    const index = out.findIndex((kept) => shapeKind(kept) === kind);
    if (index < 0) {
      out.push(variant);
      changed = true;
      continue;
    }
    const kept = out[index] as ObservedShape;
    const merged = mergeShapes(kept, variant, limits);
    if (merged === kept) continue;
    if (shapeKind(merged) === 'any') return ANY_SHAPE;
    out[index] = merged;
    changed = true;
  }
  if (!changed) return a;
  if (out.length > limits.maxVariants) return ANY_SHAPE;
  return out.length === 1 ? (out[0] as ObservedShape) : { anyOf: out };
}

function mergeArrays(a: ArrayShape, b: ArrayShape, limits: MergeLimits): ObservedShape {
  if (b.items === undefined) return a;
  if (a.items === undefined) return { type: 'array', items: b.items };
  const items = mergeShapes(a.items, b.items, limits);
  return items === a.items ? a : { type: 'array', items };
}

/** Every value shape an object holds (its properties', or its map's). */
function valueShapes(shape: ObjectShape): ObservedShape[] {
  if (isMap(shape)) return [shape.additionalProperties as ObservedShape];
  return Object.values(shape.properties ?? {});
}

/** An object as a map whose values are every value `a` and `b` hold (`a` itself when it is that already). */
function asMap(a: ObjectShape, b: ObjectShape, limits: MergeLimits): ObservedShape {
  const start = isMap(a) ? (a.additionalProperties as ObservedShape) : undefined;
  let values = start;
  for (const value of [...(start ? [] : valueShapes(a)), ...valueShapes(b)])
    values = values === undefined ? value : mergeShapes(values, value, limits);
  if (values === undefined) return a;
  if (values === start) return a;
  return { type: 'object', additionalProperties: values };
}

function mergeObjects(a: ObjectShape, b: ObjectShape, limits: MergeLimits): ObservedShape {
  if (isMap(a) || isMap(b)) return asMap(a, b, limits);
  const ownA = a.properties ?? {};
  const ownB = b.properties ?? {};
  const keysA = Object.keys(ownA);
  const added = Object.keys(ownB).filter((key) => !Object.hasOwn(ownA, key));
  if (keysA.length + added.length > limits.maxProperties) return asMap(a, b, limits);
  const properties = propertiesRecord();
  let changed = added.length > 0;
  for (const key of keysA) {
    const kept = ownA[key] as ObservedShape;
    const merged = Object.hasOwn(ownB, key) ? mergeShapes(kept, ownB[key] as ObservedShape, limits) : kept;
    if (merged !== kept) changed = true;
    properties[key] = merged;
  }
  for (const key of added) properties[key] = ownB[key] as ObservedShape;
  // Required: present in every object seen, so in both.
  const requiredB = new Set(b.required ?? []);
  const required = (a.required ?? []).filter((key) => requiredB.has(key));
  if (required.length !== (a.required ?? []).length) changed = true;
  if (!changed) return a;
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** How many nodes a shape has at each depth (containers' children are one deeper; a union's variants are at its depth). */
function nodesByDepth(shape: ObservedShape, depth: number, counts: number[]): void {
  counts[depth] = (counts[depth] ?? 0) + 1;
  const kind = shapeKind(shape);
  if (kind === 'union') {
    for (const variant of (shape as UnionShape).anyOf) nodesByDepth(variant, depth, counts);
  } else if (kind === 'array') {
    const items = (shape as ArrayShape).items;
    if (items) nodesByDepth(items, depth + 1, counts);
  } else if (kind === 'object') {
    for (const value of valueShapes(shape as ObjectShape)) nodesByDepth(value, depth + 1, counts);
  }
}

/** The shape with every container at `limit` or deeper made `{}`. */
function cutAt(shape: ObservedShape, depth: number, limit: number): ObservedShape {
  const kind = shapeKind(shape);
  if (kind === 'union') {
    const variants = (shape as UnionShape).anyOf.map((variant) => cutAt(variant, depth, limit));
    return variants.some((variant) => shapeKind(variant) === 'any') ? ANY_SHAPE : { anyOf: variants };
  }
  if (kind !== 'array' && kind !== 'object') return shape;
  if (depth >= limit) return ANY_SHAPE;
  if (kind === 'array') {
    const items = (shape as ArrayShape).items;
    return items ? { type: 'array', items: cutAt(items, depth + 1, limit) } : shape;
  }
  const object = shape as ObjectShape;
  if (isMap(object))
    return {
      type: 'object',
      additionalProperties: cutAt(object.additionalProperties as ObservedShape, depth + 1, limit),
    };
  const properties = propertiesRecord();
  for (const [key, value] of Object.entries(object.properties ?? {}))
    properties[key] = cutAt(value, depth + 1, limit);
  return { ...object, properties };
}

/**
 * A shape within `maxNodes`: when it has more, every container from the shallowest depth at which
 * the nodes above still fit is made `{}` (anything). Cutting only ever makes a shape more general,
 * so merging the same results again never undoes it (what is stored settles). The shape itself
 * when it fits.
 *
 * @example
 * ```ts
 * boundShape(merged, OBSERVED_LIMITS); // at most 256 nodes
 * ```
 */
export function boundShape(shape: ObservedShape, limits: Pick<ObservedLimits, 'maxNodes'>): ObservedShape {
  const counts: number[] = [];
  nodesByDepth(shape, 0, counts);
  let total = 0;
  for (let depth = 0; depth < counts.length; depth++) {
    total += counts[depth] ?? 0;
    if (total > limits.maxNodes) return cutAt(shape, 0, Math.max(0, depth - 1));
  }
  return shape;
}
