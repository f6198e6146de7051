import type { JSONSchema } from '@cyrnel/sdk';
import { isPlainObject } from '@cyrnel/sdk';

/** A declaration written as another one with some members replaced: `Omit<base, omitted> & {own}`. */
export interface Derivation {
  /** The shared schema this one is derived from. */
  readonly base: string;
  /** Members of the base this one lacks or types differently (sorted). */
  readonly omitted: readonly string[];
  /** This one's members that the base lacks or types differently, as an object schema. */
  readonly own: JSONSchema;
  /** Whether this one admits `null` besides (`(Omit<…> & {…}) | null`). */
  readonly nullable: boolean;
}

// Fewer shared members than this, a smaller share of the declaration, or more members of the base
// left out per member shared is not worth the indirection (nor true to what the types mean:
// GitHub's issue comment shares 12 members with an issue and lacks 28).
const MIN_SHARED = 12;
const MIN_SHARE = 0.6;
const MAX_OMITTED_PER_SHARED = 0.5;

/**
 * The plain object schemas (no index signature, union or composition; nullable or not) by name:
 * their members, and whether they admit `null` too.
 */
function plainObjects(
  schemas: Readonly<Record<string, JSONSchema>>,
  names: readonly string[],
): Map<string, { properties: Record<string, unknown>; nullable: boolean }> {
  const plain = new Map<string, { properties: Record<string, unknown>; nullable: boolean }>();
  for (const name of names) {
    const schema = schemas[name];
    if (!isPlainObject(schema) || !isPlainObject(schema.properties)) continue;
    const type = schema.type;
    const nullableType =
      Array.isArray(type) && type.length === 2 && type.includes('object') && type.includes('null');
    if (type !== 'object' && !nullableType) continue;
    const extra = ['additionalProperties', 'patternProperties', 'anyOf', 'oneOf', 'allOf', '$ref'];
    if (extra.some((key) => schema[key] !== undefined && schema[key] !== false)) continue;
    plain.set(name, { properties: schema.properties, nullable: nullableType || schema.nullable === true });
  }
  return plain;
}

/** A member's identity for comparison: its name, whether it is required, and its rendered type. */
function memberKey(name: string, type: string, required: boolean): string {
  return `${required ? '!' : '?'}${JSON.stringify(name)}:${type}`;
}

function requiredOf(schema: JSONSchema | undefined): Set<string> {
  const required = isPlainObject(schema) ? schema.required : undefined;
  return new Set(Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : []);
}

/**
 * The declarations among `names` to write as a near-identical other one with a few members
 * replaced (GitHub's `full-repository` is `repository` with 13 members changed or added, 3 KB
 * saved per selection that reaches both). Exact: `Omit<base, omitted> & own` admits the same
 * values. Only plain object schemas take part, a base is never itself derived nor nullable, so no
 * alias becomes circular.
 */
export function findDerivations(
  schemas: Readonly<Record<string, JSONSchema>>,
  names: readonly string[],
  typeOf: (schema: unknown) => string,
): Map<string, Derivation> {
  const plain = plainObjects(schemas, names);
  const keys = new Map<string, Map<string, string>>();
  const holders = new Map<string, string[]>();
  for (const [name, { properties }] of plain) {
    const required = requiredOf(schemas[name]);
    const byMember = new Map(
      Object.entries(properties).map(([member, schema]) => [
        member,
        memberKey(member, typeOf(schema), required.has(member)),
      ]),
    );
    keys.set(name, byMember);
    for (const key of byMember.values()) {
      const list = holders.get(key);
      if (list) list.push(name);
      else holders.set(key, [name]);
    }
  }
  // Largest first, so the big declarations are the bases and the near-copies derive from them.
  const order = [...plain.keys()].sort(
    (a, b) => (keys.get(b)?.size ?? 0) - (keys.get(a)?.size ?? 0) || (a < b ? -1 : 1),
  );
  const derived = new Map<string, Derivation>();
  const bases = new Set<string>();
  for (const name of order) {
    const own = keys.get(name) as Map<string, string>;
    const shared = new Map<string, number>();
    for (const key of own.values())
      for (const other of holders.get(key) ?? [])
        if (other !== name && !derived.has(other) && !plain.get(other)?.nullable)
          shared.set(other, (shared.get(other) ?? 0) + 1);
    let best: string | undefined;
    let bestCount = 0;
    for (const [other, count] of shared)
      if (count > bestCount || (count === bestCount && best !== undefined && other < best)) {
        best = other;
        bestCount = count;
      }
    if (best === undefined || bases.has(name) || bestCount < MIN_SHARED || bestCount < own.size * MIN_SHARE)
      continue;
    const base = keys.get(best) as Map<string, string>;
    const omitted = [...base].filter(([member, key]) => own.get(member) !== key).map(([member]) => member);
    if (omitted.length > bestCount * MAX_OMITTED_PER_SHARED) continue;
    const schema = schemas[name] as Record<string, unknown>;
    const { properties, nullable } = plain.get(name) as {
      properties: Record<string, unknown>;
      nullable: boolean;
    };
    const kept = Object.keys(properties).filter((member) => base.get(member) !== own.get(member));
    const required = requiredOf(schema);
    derived.set(name, {
      base: best,
      omitted: omitted.sort(),
      own: {
        type: 'object',
        properties: Object.fromEntries(kept.map((member) => [member, properties[member]])),
        required: kept.filter((member) => required.has(member)),
        additionalProperties: false,
      },
      nullable,
    });
    bases.add(best);
  }
  return derived;
}
