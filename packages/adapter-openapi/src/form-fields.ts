import type { JSONSchema } from '@cyrnel/sdk';
import { isPlainObject } from '@cyrnel/sdk';
import type { PropertyEncoding } from './operation-model';
import { FILE_OBJECT_SCHEMA, type SchemaRegistry } from './schema-registry';
import { setOwn } from './set-own';

/** How the fields of a form or multipart body are sent, and the body schema callers validate against. */
export interface FormFieldsPlan {
  /** Per property: the declared `encoding`, plus `file` (and `base64`, part type) for file fields. */
  readonly encoding: Record<string, PropertyEncoding>;
  /** The body schema, with file fields described only by 3.1 keywords widened to take file objects. */
  readonly schema: JSONSchema;
}

interface FileInfo {
  /** Found through `FILE_OBJECT_SCHEMA`: the schema already accepts a file object. */
  readonly acceptsFileObject: boolean;
  /** 3.1 `contentMediaType`: the part's default Content-Type. */
  readonly mediaType?: string;
  /** 3.1 `contentEncoding: base64`: the part carries base64 text. */
  readonly base64?: boolean;
}

type Resolve = (schema: JSONSchema) => JSONSchema;

function acceptsString(schema: JSONSchema): boolean {
  return (
    schema.type === undefined ||
    schema.type === 'string' ||
    (Array.isArray(schema.type) && schema.type.includes('string'))
  );
}

// Whether a converted property schema describes a file: `format: binary` (converted to the file choice),
// 3.1 `contentMediaType` / `contentEncoding`, Swagger 2.0 `type: file`, also behind `$ref`, inside
// `allOf`/`anyOf`/`oneOf` (nullable or composed properties) and as array items (repeated parts).
function fileInfo(schema: unknown, resolve: Resolve, seen = new Set<unknown>()): FileInfo | undefined {
  if (!isPlainObject(schema) || seen.has(schema)) return undefined;
  seen.add(schema);
  if (typeof schema.$ref === 'string') return fileInfo(resolve(schema), resolve, seen);
  const mediaType = typeof schema.contentMediaType === 'string' ? schema.contentMediaType : undefined;
  const own = { ...(mediaType ? { mediaType } : {}) };
  if (Array.isArray(schema.anyOf) && schema.anyOf.includes(FILE_OBJECT_SCHEMA))
    return { ...own, acceptsFileObject: true };
  if (acceptsString(schema) && (mediaType !== undefined || typeof schema.contentEncoding === 'string')) {
    return {
      ...own,
      acceptsFileObject: false,
      ...(schema.contentEncoding === 'base64' ? { base64: true } : {}),
    };
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    for (const member of list) {
      const found = fileInfo(member, resolve, seen);
      if (found) return { ...own, ...found };
    }
  }
  if (schema.type === 'array' || isPlainObject(schema.items)) return fileInfo(schema.items, resolve, seen);
  return undefined;
}

// A file field the schema describes only with 3.1 keywords takes a file object too, like every file field.
function widen(schema: JSONSchema): JSONSchema {
  if (schema.type === 'array' && isPlainObject(schema.items)) {
    return { ...schema, items: { anyOf: [schema.items as JSONSchema, FILE_OBJECT_SCHEMA] } };
  }
  return { anyOf: [schema, FILE_OBJECT_SCHEMA] };
}

/**
 * Plan the fields of a form or multipart body: which are files (their part gets a filename),
 * which carry base64 text, their part Content-Type, and the body schema callers validate against.
 * Properties are read from the body schema (or the definition it references) and its `allOf` members.
 */
export function planFormFields(
  media: { readonly encoding?: Record<string, PropertyEncoding> },
  schema: JSONSchema,
  registry: SchemaRegistry,
): FormFieldsPlan {
  const resolve: Resolve = (node) => {
    const name = typeof node.$ref === 'string' ? node.$ref.replace('#/$defs/', '') : '';
    return registry.defsFor(new Set([name]))[name] ?? {};
  };
  const encoding: Record<string, PropertyEncoding> = { ...(media.encoding ?? {}) };
  const target = typeof schema.$ref === 'string' ? resolve(schema) : schema;
  const members = [target, ...(Array.isArray(target.allOf) ? target.allOf : [])].map((m) =>
    isPlainObject(m) && typeof m.$ref === 'string' ? resolve(m as JSONSchema) : m,
  );
  const widened: Record<string, JSONSchema> = {};
  for (const [index, member] of members.entries()) {
    if (!isPlainObject(member) || !isPlainObject(member.properties)) continue;
    for (const [name, prop] of Object.entries(member.properties)) {
      const info = fileInfo(prop, resolve);
      if (!info) continue;
      const declared = encoding[name] ?? {};
      encoding[name] = {
        ...declared,
        file: true,
        ...(info.base64 ? { base64: true } : {}),
        ...(declared.contentType === undefined && info.mediaType ? { contentType: info.mediaType } : {}),
      };
      if (index === 0 && !info.acceptsFileObject) setOwn(widened, name, widen(prop as JSONSchema));
    }
  }
  if (Object.keys(widened).length === 0) return { encoding, schema };
  const { $ref: _ref, ...annotations } = schema;
  const properties = { ...(target.properties as Record<string, JSONSchema>), ...widened };
  return { encoding, schema: { ...target, ...annotations, properties } };
}
