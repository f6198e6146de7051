/**
 * What the host's own thread may say of a value without a validation worker: `true` when it
 * certainly matches its schema, `false` when it cannot tell (the worker then decides, and words
 * the problems).
 */
export type PlainCheck = (value: unknown) => boolean;

/** Subschemas, enum members and properties a plain schema may hold at most, all together. */
const MAX_SCHEMA_NODES = 256;
/** Values (each element, property and scalar, and each key) the host walks at most before it asks a worker. */
const MAX_VALUE_NODES = 2_000;
/** String length, summed over a value, the host reads at most before it asks a worker. */
const MAX_VALUE_CHARS = 64 * 1024;
/** Nesting the host follows at most. */
const MAX_VALUE_DEPTH = 32;

/** Keywords that describe and never constrain. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const LENGTHS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems']);

type Node = (value: unknown) => boolean;

/**
 * The check of a schema built only of the keywords whose cost is linear in the value and whose
 * meaning is plain (types, properties, `required`, `additionalProperties`, a single `items`
 * schema, primitive `enum` and `const`, inclusive bounds and lengths), or undefined for any other
 * schema: a pattern, a format, a reference, a combinator or an unknown keyword is the validation
 * worker's, with its linear-time regular expressions and its deadline. Its own walk stops at a
 * few thousand values, so the host's thread spends microseconds on a call, never more (it visits
 * each value once, as the structured clone that sends a value to a worker does): a larger value
 * is the worker's too. It is stricter than Ajv, never looser: anything it is unsure of
 * (a non-finite number, an inherited property) is answered `false` and left to the worker. Kept
 * by hand rather than with a second Ajv on the host's thread, which would compile code from an
 * upstream's schema there.
 *
 * @example
 * ```ts
 * const check = plainCheckOf({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
 * check?.({ a: 1 }); // true
 * check?.({}); // false: the worker says why
 * ```
 */
export function plainCheckOf(schema: unknown): PlainCheck | undefined {
  const budget = { nodes: MAX_SCHEMA_NODES };
  const root = compile(schema, budget, true);
  if (!root) return undefined;
  return (value) => small(value) && root(value);
}

/**
 * Whether `value` is plain JSON within the walk's budget: at most MAX_VALUE_NODES values,
 * MAX_VALUE_DEPTH levels and MAX_VALUE_CHARS of strings and keys, every number finite. Anything
 * else (a value the sandbox could only send from a compromised child) is the worker's, whose
 * structured clone and deadline bound it.
 */
function small(value: unknown): boolean {
  let nodes = MAX_VALUE_NODES;
  let chars = MAX_VALUE_CHARS;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop() as { value: unknown; depth: number };
    if (--nodes < 0) return false;
    const item = next.value;
    if (item === null || typeof item === 'boolean') continue;
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) return false;
    } else if (typeof item === 'string') {
      chars -= item.length;
      if (chars < 0) return false;
    } else if (Array.isArray(item)) {
      if (next.depth >= MAX_VALUE_DEPTH || item.length > nodes) return false;
      for (const element of item) stack.push({ value: element, depth: next.depth + 1 });
    } else if (isJsonObject(item)) {
      if (next.depth >= MAX_VALUE_DEPTH) return false;
      for (const key in item) {
        if (!Object.hasOwn(item, key) || --nodes < 0) return false;
        chars -= key.length;
        if (chars < 0) return false;
        stack.push({ value: item[key], depth: next.depth + 1 });
      }
    } else return false;
  }
  return true;
}

function compile(schema: unknown, budget: { nodes: number }, root: boolean): Node | undefined {
  if (--budget.nodes < 0) return undefined;
  if (schema === true) return () => true;
  if (!isJsonObject(schema)) return undefined;
  const parts: Node[] = [];
  const object: { properties?: Record<string, Node>; required?: string[]; extra?: Node | false } = {};
  for (const [keyword, argument] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    // The draft the worker would compile it as: the keywords below mean the same in each.
    if (keyword === '$schema') {
      if (!root || typeof argument !== 'string') return undefined;
      continue;
    }
    const part = keywordNode(keyword, argument, budget, object);
    if (part === undefined) return undefined;
    if (part !== null) parts.push(part);
  }
  if (object.properties || object.required || object.extra !== undefined) parts.push(objectNode(object));
  return (value) => {
    for (const part of parts) if (!part(value)) return false;
    return true;
  };
}

/** One keyword's check; null when it is gathered into the object's check; undefined when not plain. */
function keywordNode(
  keyword: string,
  argument: unknown,
  budget: { nodes: number },
  object: { properties?: Record<string, Node>; required?: string[]; extra?: Node | false },
): Node | null | undefined {
  switch (keyword) {
    case 'type': {
      const types = typeof argument === 'string' ? [argument] : argument;
      if (!Array.isArray(types) || types.length === 0 || !types.every((type) => TYPES.has(type)))
        return undefined;
      return (value) => types.some((type) => hasType(value, type));
    }
    case 'properties': {
      if (!isJsonObject(argument)) return undefined;
      const properties: Record<string, Node> = Object.create(null);
      for (const [name, sub] of Object.entries(argument)) {
        const node = compile(sub, budget, false);
        if (!node) return undefined;
        properties[name] = node;
      }
      object.properties = properties;
      return null;
    }
    case 'required':
      if (!Array.isArray(argument) || !argument.every((name) => typeof name === 'string')) return undefined;
      budget.nodes -= argument.length;
      object.required = argument;
      return budget.nodes < 0 ? undefined : null;
    case 'additionalProperties': {
      if (argument === false) object.extra = false;
      else {
        const node = compile(argument, budget, false);
        if (!node) return undefined;
        object.extra = node;
      }
      return null;
    }
    case 'items': {
      const node = compile(argument, budget, false);
      if (!node) return undefined;
      return (value) => !Array.isArray(value) || value.every(node);
    }
    case 'enum': {
      if (!Array.isArray(argument) || argument.length === 0 || !argument.every(isPrimitive)) return undefined;
      budget.nodes -= argument.length;
      if (budget.nodes < 0) return undefined;
      const members = new Set(argument);
      return (value) => isPrimitive(value) && members.has(value);
    }
    case 'const':
      return isPrimitive(argument) ? (value) => value === argument : undefined;
    case 'minimum':
    case 'maximum': {
      if (typeof argument !== 'number' || !Number.isFinite(argument)) return undefined;
      const below = keyword === 'minimum';
      return (value) =>
        typeof value !== 'number' ||
        (Number.isFinite(value) && (below ? value >= argument : value <= argument));
    }
    default:
      if (!LENGTHS.has(keyword) || !Number.isSafeInteger(argument) || (argument as number) < 0)
        return undefined;
      return lengthNode(keyword, argument as number);
  }
}

/** `minLength`/`maxLength` (in code points, as Ajv counts) and `minItems`/`maxItems`. */
function lengthNode(keyword: string, bound: number): Node {
  const least = keyword.startsWith('min');
  const within = (length: number) => (least ? length >= bound : length <= bound);
  if (keyword.endsWith('Items')) return (value) => !Array.isArray(value) || within(value.length);
  return (value) => {
    if (typeof value !== 'string') return true;
    let points = 0;
    for (const _ of value) points++;
    return within(points);
  };
}

/** `properties`, `required` and `additionalProperties` of one object schema, in one walk. */
function objectNode(object: {
  properties?: Record<string, Node>;
  required?: string[];
  extra?: Node | false;
}): Node {
  const { properties, required, extra } = object;
  return (value) => {
    if (!isJsonObject(value)) return !(typeof value === 'object' && value !== null && !Array.isArray(value));
    if (required) for (const name of required) if (!Object.hasOwn(value, name)) return false;
    for (const name in value) {
      const node = properties && Object.hasOwn(properties, name) ? properties[name] : undefined;
      if (node) {
        if (!node(value[name])) return false;
      } else if (extra === false || (extra && !extra(value[name]))) return false;
    }
    return true;
  };
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    default:
      return isJsonObject(value);
  }
}

/** An object as JSON makes one (a Date or a Map, which the sandbox cannot send, is not). */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isPrimitive(value: unknown): value is string | number | boolean | null {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}
