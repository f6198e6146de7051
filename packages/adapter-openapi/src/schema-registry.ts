import type { JSONSchema } from '@cyrnel/sdk';
import { isPlainObject } from '@cyrnel/sdk';
import { type DiscriminatedUnion, discriminatedUnion, mappingRef } from './discriminated-union';
import { resolvePointer } from './json-pointer';
import type { OpenApiDialect } from './parse-document';
import {
  applyNullable,
  binaryAsFile,
  DROPPED,
  defNameFor,
  FILE_OBJECT_SCHEMA,
  JSON_TYPES,
  SCHEMA_ARRAYS,
  SCHEMA_MAPS,
  SCHEMA_VALUES,
  stripReadOnlyFromRequired,
  validPattern,
} from './schema-keywords';
import { setOwn } from './set-own';

export { FILE_OBJECT_SCHEMA };

/** Converts OpenAPI schemas to JSON Schema and keeps every `$ref` target once, as a named definition. */
export interface SchemaRegistry {
  /** Convert one schema; the `$defs` names it references are added to `refs`. */
  convert(schema: unknown, refs: Set<string>): JSONSchema;
  /** Every definition reachable from `refs`, sorted by name. */
  defsFor(refs: ReadonlySet<string>): Record<string, JSONSchema>;
  /** Every definition converted so far, sorted by name: the service's shared schemas. */
  allDefs(): Record<string, JSONSchema>;
  /** Follow `$ref` chains of a non-schema object (parameter, response, ...) to the object itself. */
  deref(node: unknown): unknown;
}

/** Options of {@link createSchemaRegistry}. */
export interface SchemaRegistryOptions {
  /** The parsed document, for resolving local refs. */
  readonly root: unknown;
  /** Decides the 3.0/2.0 keyword conversions (`nullable`, boolean exclusive bounds). */
  readonly dialect: OpenApiDialect;
  /** Schema objects converted per document before refusing it (default {@link MAX_SCHEMA_NODES}). */
  readonly maxNodes?: number;
}

/**
 * Schema objects one document may convert. Each `$ref` target is converted once, but a schema reached
 * through a shared parameter, body or response component is converted once per operation, and a YAML
 * alias once per use; this bounds the work (GitHub's 1,223 operations convert about 20,000).
 */
export const MAX_SCHEMA_NODES = 1_000_000;

/**
 * Create the per-document schema registry. Every `$ref` becomes `{ $ref: '#/$defs/<name>' }` and its
 * target is converted exactly once (a work list, not recursion), so recursive schemas stay finite and
 * documents with thousands of schemas convert in linear time.
 */
export function createSchemaRegistry(options: SchemaRegistryOptions): SchemaRegistry {
  const { root, dialect, maxNodes = MAX_SCHEMA_NODES } = options;
  let converted = 0;
  const legacy = dialect !== '3.1';
  const nameByRef = new Map<string, string>();
  const usedNames = new Set<string>();
  const defs = new Map<string, JSONSchema>();
  const deps = new Map<string, ReadonlySet<string>>();
  const pending: Array<{ ref: string; name: string }> = [];

  function nameOf(ref: string): string {
    const known = nameByRef.get(ref);
    if (known !== undefined) return known;
    resolvePointer(root, ref); // fail early, naming the pointer
    const base = defNameFor(ref);
    let name = base;
    for (let n = 2; usedNames.has(name.toLowerCase()); n++) name = `${base}_${n}`;
    usedNames.add(name.toLowerCase());
    nameByRef.set(ref, name);
    pending.push({ ref, name });
    return name;
  }

  function checkRefCycle(ref: string): void {
    const seen = new Set<string>();
    let current: unknown = { $ref: ref };
    while (isPlainObject(current) && typeof current.$ref === 'string' && Object.keys(current).length === 1) {
      if (seen.has(current.$ref)) throw new Error(`circular $ref chain at '${ref}'`);
      seen.add(current.$ref);
      current = resolvePointer(root, current.$ref);
    }
  }

  function convert(schema: unknown, refs: Set<string>): JSONSchema {
    if (++converted > maxNodes) {
      throw new Error(
        `schemas too large: more than ${maxNodes} schema objects after expanding shared components and YAML aliases; refused`,
      );
    }
    if (typeof schema === 'boolean') return (schema ? {} : { not: {} }) as JSONSchema;
    if (!isPlainObject(schema)) return {};
    if (typeof schema.$ref === 'string') {
      const name = nameOf(schema.$ref);
      refs.add(name);
      const out: JSONSchema = { $ref: `#/$defs/${name}` };
      // 3.0 and 2.0 ignore $ref siblings; 3.1 keeps annotations next to it.
      if (!legacy) {
        for (const key of [
          'description',
          'title',
          'deprecated',
          'readOnly',
          'writeOnly',
          'default',
          'examples',
        ]) {
          if (schema[key] !== undefined) out[key] = schema[key];
        }
      }
      // `nullable` beside a `$ref` is how 3.0 documents (and `x-nullable` in 2.0) make a reference
      // nullable; dropping it as an ignored sibling would refuse the nulls servers send and accept.
      if (schema.nullable === true || schema['x-nullable'] === true)
        return { anyOf: [out, { type: 'null' }] };
      return out;
    }
    let out: JSONSchema = {};
    for (const [key, value] of Object.entries(schema)) {
      if (DROPPED.has(key) || key.startsWith('x-')) continue;
      if (SCHEMA_MAPS.includes(key) && isPlainObject(value)) {
        const map: Record<string, JSONSchema> = {};
        for (const [name, sub] of Object.entries(value)) {
          if (key === 'patternProperties' && !validPattern(name)) continue;
          setOwn(map, name, convert(sub, refs));
        }
        out[key] = map;
      } else if (SCHEMA_VALUES.includes(key) && (isPlainObject(value) || typeof value === 'boolean')) {
        out[key] = convert(value, refs);
      } else if ((SCHEMA_ARRAYS.includes(key) || key === 'items') && Array.isArray(value)) {
        out[key] = value.map((sub) => convert(sub, refs));
      } else if (key === 'discriminator' && isPlainObject(value)) {
        out[key] = convertDiscriminator(value, refs);
      } else if (key === 'pattern') {
        // Patterns a JavaScript 'u' RegExp cannot compile would make every validation throw.
        if (validPattern(value)) out[key] = value;
      } else if (key === 'required') {
        if (Array.isArray(value)) out[key] = value.filter((v) => typeof v === 'string');
      } else if (key === 'type') {
        const types = (Array.isArray(value) ? value : [value]).filter(
          (t): t is string => typeof t === 'string' && JSON_TYPES.has(t),
        );
        if (value === 'file') Object.assign(out, { anyOf: [{ type: 'string' }, FILE_OBJECT_SCHEMA] });
        else if (types.length > 0) out[key] = Array.isArray(value) ? types : types[0];
      } else if (key === 'nullable' || key === 'x-nullable') {
        // Handled below (3.0 and Swagger 2.0 keywords; also honoured in 3.1 documents that still use them).
      } else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
        const bound = key === 'exclusiveMinimum' ? schema.minimum : schema.maximum;
        if (value === true && typeof bound === 'number') out[key] = bound;
        else if (typeof value === 'number') out[key] = value;
      } else {
        setOwn(out, key, value);
      }
    }
    const union = discriminatedUnion(schema, root);
    if (union) out = selectByTag(out, union, refs);
    if (schema.exclusiveMinimum === true) delete out.minimum;
    if (schema.exclusiveMaximum === true) delete out.maximum;
    stripReadOnlyFromRequired(out);
    out = binaryAsFile(out);
    if (schema.nullable === true || schema['x-nullable'] === true) out = applyNullable(out);
    return out;
  }

  function defRef(ref: string, refs: Set<string>): string {
    const name = nameOf(ref);
    refs.add(name);
    return `#/$defs/${name}`;
  }

  function convertDiscriminator(value: Record<string, unknown>, refs: Set<string>): JSONSchema {
    const out: JSONSchema = { ...value };
    if (isPlainObject(value.mapping)) {
      const mapping: Record<string, unknown> = {};
      for (const [tag, target] of Object.entries(value.mapping)) {
        const ref = mappingRef(target, root);
        setOwn(mapping, tag, ref === undefined ? target : defRef(ref, refs));
      }
      out.mapping = mapping;
    }
    return out;
  }

  // JSON Schema validators ignore `discriminator`, and branches that overlap (allOf inheritance, open
  // objects) make a `oneOf` match twice and reject valid bodies. So the union becomes an `anyOf` and the
  // tag selects its branch: one `if tag = value then $ref` clause per tag.
  function selectByTag(out: JSONSchema, union: DiscriminatedUnion, refs: Set<string>): JSONSchema {
    const { propertyName, tags } = union;
    const result: JSONSchema = { ...out };
    const allOf = Array.isArray(out.allOf) ? [...(out.allOf as JSONSchema[])] : [];
    if (Array.isArray(out.oneOf)) {
      delete result.oneOf;
      if (Array.isArray(out.anyOf)) allOf.push({ anyOf: out.oneOf });
      else result.anyOf = out.oneOf;
    }
    for (const [tag, ref] of tags) {
      const properties: Record<string, JSONSchema> = {};
      setOwn(properties, propertyName, { const: tag });
      allOf.push({
        if: { type: 'object', properties, required: [propertyName] },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; a nested schema, never awaited.
        then: { $ref: defRef(ref, refs) },
      });
    }
    result.allOf = allOf;
    return result;
  }

  function drain(): void {
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
      checkRefCycle(next.ref);
      const refs = new Set<string>();
      defs.set(next.name, convert(resolvePointer(root, next.ref), refs));
      deps.set(next.name, refs);
    }
  }

  return {
    convert(schema, refs) {
      const out = convert(schema, refs);
      drain();
      return out;
    },
    defsFor(refs) {
      const reachable = new Set<string>();
      const queue = [...refs];
      for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
        if (reachable.has(name)) continue;
        reachable.add(name);
        for (const dep of deps.get(name) ?? []) queue.push(dep);
      }
      const out: Record<string, JSONSchema> = {};
      for (const name of [...reachable].sort()) out[name] = defs.get(name) ?? {};
      return out;
    },
    allDefs() {
      const out: Record<string, JSONSchema> = {};
      for (const name of [...defs.keys()].sort()) out[name] = defs.get(name) as JSONSchema;
      return out;
    },
    deref(node) {
      const seen = new Set<string>();
      let current = node;
      while (isPlainObject(current) && typeof current.$ref === 'string') {
        if (seen.has(current.$ref)) throw new Error(`circular $ref chain at '${current.$ref}'`);
        seen.add(current.$ref);
        current = resolvePointer(root, current.$ref);
      }
      return current;
    },
  };
}
