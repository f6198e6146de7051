import type { JSONSchema } from './json-schema';
import { isPlainObject } from './plain-object';

/**
 * What a shared schema may be named (`ServiceDefinition.schemas`): letters, digits, `_`, `.` and
 * `-`, 1 to 200 characters, so `#/$defs/<name>` is a JSON Pointer and a URI fragment without escapes.
 */
export const SHARED_SCHEMA_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,200}$/;

const REF = /^#\/\$defs\/([A-Za-z0-9_.-]{1,200})$/;

/** The `$ref` that points at the shared schema `name`: `#/$defs/<name>`. */
export function sharedSchemaRef(name: string): string {
  return `#/$defs/${name}`;
}

/** The shared schema name a `$ref` points at (`#/$defs/<name>`), or undefined for any other reference. */
export function sharedSchemaName(ref: string): string | undefined {
  return REF.exec(ref)?.[1];
}

/**
 * The shared schemas a schema reaches, directly or through other shared schemas, by name (sorted).
 * Names the schema's own `$defs` holds are its own and not looked up. Walks each shared schema once
 * and copies nothing: the values are the entries of `schemas`.
 *
 * @example
 * ```ts
 * const schemas = { Repo: { type: 'object', properties: { owner: { $ref: '#/$defs/User' } } }, User: {} };
 * sharedSchemaClosure({ $ref: '#/$defs/Repo' }, schemas); // { Repo: {...}, User: {} }
 * ```
 */
export function sharedSchemaClosure(
  schema: unknown,
  schemas: Readonly<Record<string, JSONSchema>>,
): Record<string, JSONSchema> {
  const own = isPlainObject(schema) && isPlainObject(schema.$defs) ? schema.$defs : {};
  const found = new Set<string>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    if (!isPlainObject(node)) continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = sharedSchemaName(value);
        if (name === undefined || found.has(name) || Object.hasOwn(own, name)) continue;
        if (!Object.hasOwn(schemas, name)) continue;
        found.add(name);
        stack.push(schemas[name]);
      } else if (typeof value === 'object') stack.push(value);
    }
  }
  const out: Record<string, JSONSchema> = {};
  for (const name of [...found].sort()) out[name] = schemas[name] as JSONSchema;
  return out;
}

/**
 * A tool schema made self-contained: the shared schemas it reaches added to its `$defs` (its own
 * entries win). Returns `schema` itself when it reaches none.
 */
export function withSharedSchemas(
  schema: JSONSchema,
  schemas: Readonly<Record<string, JSONSchema>> | undefined,
): JSONSchema {
  if (!schemas) return schema;
  const closure = sharedSchemaClosure(schema, schemas);
  if (Object.keys(closure).length === 0) return schema;
  const own = isPlainObject(schema.$defs) ? (schema.$defs as Record<string, JSONSchema>) : {};
  return { ...schema, $defs: { ...closure, ...own } };
}
