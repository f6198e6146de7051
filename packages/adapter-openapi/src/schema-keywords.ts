import type { JSONSchema } from '@cyrnel/sdk';
import { isPlainObject } from '@cyrnel/sdk';
import { pointerSegments } from './json-pointer';

/** What a multipart or binary body field accepts besides a plain text string. */
export const FILE_OBJECT_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    base64: { type: 'string', description: 'File content, base64-encoded' },
    filename: { type: 'string' },
    contentType: { type: 'string' },
  },
  required: ['base64'],
  additionalProperties: false,
};

/** Keywords whose value maps names to schemas. */
export const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
/** Keywords whose value is one schema. */
export const SCHEMA_VALUES = [
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
];
/** Keywords whose value is a list of schemas. */
export const SCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
// Keywords that only add size, or change the base URI under our `$ref`s, or that validators cannot follow.
export const DROPPED = new Set([
  'xml',
  'externalDocs',
  '$schema',
  '$id',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$comment',
]);
/** The JSON Schema type names; anything else in `type` is dropped. */
export const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

/** True when a JavaScript 'u' RegExp compiles the pattern (validators would throw otherwise). */
export function validPattern(pattern: unknown): boolean {
  if (typeof pattern !== 'string') return false;
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** The `$defs` name of a ref target: the component name, or the pointer's segments joined. */
export function defNameFor(ref: string): string {
  const segments = pointerSegments(ref);
  const isNamed =
    (segments.length === 3 && segments[0] === 'components' && segments[1] === 'schemas') ||
    (segments.length === 2 && segments[0] === 'definitions');
  const raw = isNamed ? (segments.at(-1) ?? '') : segments.join('_');
  return raw.replace(/[^A-Za-z0-9_.-]/g, '_') || 'schema';
}

/**
 * A `format: binary` string as what multipart and binary bodies accept: text, or a
 * {@link FILE_OBJECT_SCHEMA}. The other types of a type array (`['string', 'null']`) stay allowed.
 */
export function binaryAsFile(out: JSONSchema): JSONSchema {
  const types = out.type === undefined ? ['string'] : Array.isArray(out.type) ? out.type : [out.type];
  if (out.format !== 'binary' || !types.includes('string')) return out;
  const { type: _type, format: _format, ...rest } = out;
  const others = types.filter((t): t is string => typeof t === 'string' && t !== 'string');
  const choice: JSONSchema[] = [{ type: 'string' }, FILE_OBJECT_SCHEMA, ...others.map((t) => ({ type: t }))];
  if (!Array.isArray(rest.anyOf)) return { ...rest, anyOf: choice };
  return { ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), { anyOf: choice }] };
}

/** Apply 3.0 `nullable: true`: add `null` to `type` and `enum`, or wrap in `anyOf` with null. */
export function applyNullable(out: JSONSchema): JSONSchema {
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    return out;
  }
  if (Array.isArray(out.type)) {
    if (!out.type.includes('null')) out.type = [...out.type, 'null'];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

// A readOnly property listed as required would force clients to send it (OpenAPI: required applies
// to responses only); writeOnly the reverse. The input side matters more, so both are relaxed.
/** Drop readOnly/writeOnly properties from `required`. */
export function stripReadOnlyFromRequired(out: JSONSchema): void {
  if (!Array.isArray(out.required) || !isPlainObject(out.properties)) return;
  const props = out.properties as Record<string, unknown>;
  out.required = (out.required as string[]).filter((name) => {
    const prop = props[name];
    return !(isPlainObject(prop) && (prop.readOnly === true || prop.writeOnly === true));
  });
}
