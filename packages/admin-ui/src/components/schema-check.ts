/** The part of JSON Schema the settings forms read: what a config or secrets schema says of a value. */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  description?: string;
  title?: string;
  default?: unknown;
  writeOnly?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
}

/** A value that does not fit its schema: where (a JSON pointer) and why, never quoting the value. */
export interface SchemaProblem {
  readonly pointer: string;
  readonly message: string;
}

/** The type a field of `schema` edits: a JSON type, `enum`, or `json` (anything, typed as JSON). */
export function schemaType(schema: Schema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== 'null') : schema.type;
  if (type) return type;
  if (schema.properties) return 'object';
  if (schema.enum) return 'enum';
  return 'json';
}

/** True when `schema` is a form of its own (a fieldset): an object with named properties. */
export function isFieldset(schema: Schema): boolean {
  return schemaType(schema) === 'object' && Object.keys(schema.properties ?? {}).length > 0;
}

/** What JSON type `value` is, in words (`a list`, `a number`). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return 'true or false';
  return 'a number';
}

const EXPECTED: Record<string, string> = {
  string: 'a string (in double quotes)',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object ({ … })',
  array: 'a list ([ … ])',
  null: 'null',
};

function fitsType(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

/** The pointer token of `key` (RFC 6901). */
export function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The bounds of a number or a string's length, checked. */
function boundsProblem(schema: Schema, value: unknown): string | undefined {
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `must be at least ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `must be at most ${schema.maximum}`;
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) {
      return `must be more than ${schema.exclusiveMinimum}`;
    }
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) {
      return `must be less than ${schema.exclusiveMaximum}`;
    }
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      return `must be at least ${schema.minLength} characters long`;
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      return `must be at most ${schema.maxLength} characters long`;
    }
    if (schema.pattern !== undefined) {
      let pattern: RegExp | undefined;
      try {
        pattern = new RegExp(schema.pattern, 'u');
      } catch {
        // A pattern this browser cannot read: the server judges it.
      }
      if (pattern && !pattern.test(value))
        return `does not have the form the schema asks (${schema.pattern})`;
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      return `must hold at least ${schema.minItems} items`;
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      return `must hold at most ${schema.maxItems} items`;
    }
  }
  return undefined;
}

/**
 * What is wrong with `value` against `schema` (types, enums, bounds, lengths, patterns, required
 * and unknown properties, items), each problem at its JSON pointer below `pointer`. Checked in the
 * browser so a form sends nothing the server would refuse for these reasons; the messages name
 * properties but never quote values (they may be secrets).
 *
 * @example
 * ```ts
 * checkValue({ type: 'integer', minimum: 1 }, 0, '/timeoutMs'); // [{ pointer: '/timeoutMs', message: 'must be at least 1' }]
 * ```
 */
export function checkValue(schema: Schema, value: unknown, pointer: string): SchemaProblem[] {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0 && !types.some((type) => fitsType(type, value))) {
    const expected = types.map((type) => EXPECTED[type] ?? type).join(' or ');
    return [{ pointer, message: `must be ${expected}, not ${kindOf(value)}` }];
  }
  if (schema.enum && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    return [
      {
        pointer,
        message: `must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`,
      },
    ];
  }
  const bound = boundsProblem(schema, value);
  if (bound) return [{ pointer, message: bound }];
  const problems: SchemaProblem[] = [];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      if (object[name] === undefined) {
        problems.push({ pointer: `${pointer}/${pointerToken(name)}`, message: 'is required' });
      }
    }
    for (const [name, child] of Object.entries(object)) {
      const at = `${pointer}/${pointerToken(name)}`;
      const declared = schema.properties?.[name];
      if (declared) problems.push(...checkValue(declared, child, at));
      else if (schema.additionalProperties === false) {
        problems.push({
          pointer: at,
          message: `is not a property this schema knows (${JSON.stringify(name)})`,
        });
      } else if (typeof schema.additionalProperties === 'object') {
        problems.push(...checkValue(schema.additionalProperties, child, at));
      }
    }
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, index) => {
      problems.push(...checkValue(schema.items as Schema, item, `${pointer}/${index}`));
    });
  }
  return problems;
}

/**
 * An example in JSON of what a field of `schema` named `name` takes, for the fields typed as JSON
 * (`headers` → `{ "Authorization": "Bearer <token>" }`); undefined when there is no simple one.
 */
export function jsonExample(schema: Schema, name: string): string | undefined {
  const type = schemaType(schema);
  const values =
    typeof schema.additionalProperties === 'object' ? schemaType(schema.additionalProperties) : undefined;
  if (type === 'object' && values === 'string') {
    return /header/i.test(name) ? '{ "Authorization": "Bearer <token>" }' : '{ "name": "value" }';
  }
  if (type === 'object') return '{ "name": "value" }';
  if (type === 'array') {
    const items = schema.items ? schemaType(schema.items) : undefined;
    return items === 'number' || items === 'integer' ? '[1, 2]' : '["first", "second"]';
  }
  return undefined;
}
