import type { ObservedLimits } from './observed-limits';
import { type ObservedShape, propertiesRecord, SCALAR_KINDS } from './observed-shape';
import { isStructuralKey } from './shape-keys';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Exactly these keys (some optional) and no other. */
function hasOnly(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

/**
 * A stored shape read back, or undefined when it is not one this version writes (another
 * version's, or changed by hand): then it is learned again from scratch, replacing it. Checked
 * as hostile: only the shape keywords, structural keys, at most `maxDepth` deep and `maxNodes`
 * nodes, so a bad row can never put a value into a declaration.
 *
 * @example
 * ```ts
 * readShape({ type: 'string' }, OBSERVED_LIMITS); // { type: 'string' }
 * readShape({ enum: ['secret'] }, OBSERVED_LIMITS); // undefined
 * ```
 */
export function readShape(value: unknown, limits: ObservedLimits): ObservedShape | undefined {
  let nodes = 0;
  const read = (node: unknown, depth: number): ObservedShape | undefined => {
    if (!isRecord(node) || ++nodes > limits.maxNodes || depth > limits.maxDepth) return undefined;
    if (Object.keys(node).length === 0) return {};
    if (node.anyOf !== undefined) {
      if (!hasOnly(node, ['anyOf']) || !Array.isArray(node.anyOf)) return undefined;
      if (node.anyOf.length < 2 || node.anyOf.length > limits.maxVariants) return undefined;
      const variants: ObservedShape[] = [];
      for (const variant of node.anyOf) {
        const read1 = read(variant, depth);
        if (!read1 || read1.anyOf !== undefined || read1.type === undefined) return undefined;
        if (variants.some((kept) => kept.type === read1.type)) return undefined;
        variants.push(read1);
      }
      return { anyOf: variants };
    }
    const { type } = node;
    if (typeof type === 'string' && SCALAR_KINDS.has(type))
      return hasOnly(node, ['type']) ? ({ type } as ObservedShape) : undefined;
    if (type === 'array') {
      if (!hasOnly(node, ['type', 'items'])) return undefined;
      if (node.items === undefined) return { type: 'array' };
      const items = read(node.items, depth + 1);
      return items && { type: 'array', items };
    }
    if (type !== 'object' || !hasOnly(node, ['type', 'properties', 'required', 'additionalProperties']))
      return undefined;
    if (node.properties === undefined) {
      if (node.required !== undefined || node.additionalProperties === undefined) return undefined;
      const values = read(node.additionalProperties, depth + 1);
      return values && { type: 'object', additionalProperties: values };
    }
    if (node.additionalProperties !== undefined || !isRecord(node.properties)) return undefined;
    const keys = Object.keys(node.properties);
    if (keys.length > limits.maxProperties) return undefined;
    const properties = propertiesRecord();
    for (const key of keys) {
      if (!isStructuralKey(key, limits.maxKeyLength)) return undefined;
      const property = read(node.properties[key], depth + 1);
      if (!property) return undefined;
      properties[key] = property;
    }
    const required = node.required ?? [];
    if (!Array.isArray(required) || !required.every((key) => typeof key === 'string' && keys.includes(key)))
      return undefined;
    return { type: 'object', properties, ...(required.length > 0 ? { required: [...required] } : {}) };
  };
  return read(value, 0);
}
