import { type JSONSchema, sharedSchemaName, sharedSchemaRef } from '@cyrnel/sdk';

/** The shared schema names a schema refers to outside object members and array elements. */
function directRefs(node: unknown, out: Set<string>): Set<string> {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return out;
  const record = node as Record<string, unknown>;
  if (typeof record.$ref === 'string') {
    const name = sharedSchemaName(record.$ref);
    if (name !== undefined) out.add(name);
    return out;
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const parts = record[key];
    if (Array.isArray(parts)) for (const part of parts) directRefs(part, out);
  }
  return out;
}

/**
 * The references that would make a type alias circular (`type A = B | string; type B = A & {...}`
 * is TS2456), as `from\u0000to`: the back edges of a depth-first walk over the direct references.
 */
export function circularRefs(
  schemas: Readonly<Record<string, JSONSchema>>,
  names: readonly string[],
): Set<string> {
  const broken = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const graph = new Map(names.map((name) => [name, [...directRefs(schemas[name], new Set())]]));
  for (const start of names) {
    if (state.has(start)) continue;
    const stack: { name: string; next: number }[] = [{ name: start, next: 0 }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { name: string; next: number };
      const edges = graph.get(top.name) ?? [];
      if (top.next >= edges.length) {
        state.set(top.name, 'done');
        stack.pop();
        continue;
      }
      const to = edges[top.next++] as string;
      if (!graph.has(to)) continue;
      const seen = state.get(to);
      if (seen === 'open') broken.add(`${top.name}\u0000${to}`);
      else if (seen === undefined) {
        state.set(to, 'open');
        stack.push({ name: to, next: 0 });
      }
    }
  }
  return broken;
}

const NOT_TYPE = new Set(['nullable', 'description', 'title']);

/**
 * A schema's JSON without its nullability and docs (`type: ['object', 'null']` counts as
 * `type: 'object'`), and whether it admits `null` that way.
 */
function nullableShape(schema: unknown): { key: string; nullable: boolean } | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const record = schema as Record<string, unknown>;
  let type = record.type;
  let nullable = record.nullable === true;
  if (Array.isArray(type) && type.includes('null')) {
    nullable = true;
    const rest = type.filter((name) => name !== 'null');
    type = rest.length === 1 ? rest[0] : rest;
  }
  const entries = Object.entries(record)
    .filter(([name]) => !NOT_TYPE.has(name))
    .map(([name, value]) => (name === 'type' ? [name, type] : [name, value]));
  return { key: JSON.stringify(entries), nullable };
}

/**
 * The schemas to declare: one that is another reached schema admitting `null` too (GitHub's
 * `nullable-repository` beside `repository`) becomes `{ anyOf: [{ $ref: other }, { type: 'null' }] }`,
 * so its members are declared once.
 */
export function withNullableTwins(
  schemas: Readonly<Record<string, JSONSchema>>,
  names: readonly string[],
): Readonly<Record<string, JSONSchema>> {
  const plain = new Map<string, string>();
  for (const name of names) {
    const shape = nullableShape(schemas[name]);
    if (shape && !shape.nullable && !plain.has(shape.key)) plain.set(shape.key, name);
  }
  const twins: Record<string, JSONSchema> = {};
  for (const name of names) {
    const shape = nullableShape(schemas[name]);
    const other = shape?.nullable ? plain.get(shape.key) : undefined;
    if (other === undefined) continue;
    const description = schemas[name]?.description;
    twins[name] = {
      ...(typeof description === 'string' ? { description } : {}),
      anyOf: [{ $ref: sharedSchemaRef(other) }, { type: 'null' }],
    };
  }
  return Object.keys(twins).length === 0 ? schemas : { ...schemas, ...twins };
}

const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The comment of a named declaration: its description, unless that only restates the name
 * (GitHub's `full-repository`: "Full Repository", `nullable-license-simple`: "License Simple")
 * or repeats the declaration it is written from (a nullable twin, a derived declaration).
 */
export function declarationComment(
  name: string,
  schemas: Readonly<Record<string, JSONSchema>>,
  given: Readonly<Record<string, JSONSchema>>,
  derivedFrom: string | undefined,
): string {
  const description = schemas[name]?.description;
  if (typeof description !== 'string') return '';
  if ([words(name), words(name).replace(/^nullable/, '')].includes(words(description))) return '';
  const options = schemas[name]?.anyOf;
  const first = Array.isArray(options) ? (options[0] as { $ref?: unknown } | undefined) : undefined;
  const twin = schemas[name] === given[name] ? undefined : sharedSchemaName(String(first?.$ref));
  const source = twin ?? derivedFrom;
  return source !== undefined && given[source]?.description === description ? '' : description;
}
