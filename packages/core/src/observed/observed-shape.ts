/**
 * The shape of results cyrnel has seen of a tool that declares no output schema: a subset of JSON
 * Schema that says types only (`type`, `properties`, `required`, `items`, `additionalProperties`,
 * `anyOf`), never a value (no `enum`, `const`, `examples`, `format`, `pattern` or string content).
 * `{}` is "anything" (cut by a bound, or too varied to say more).
 *
 * @example
 * ```ts
 * const shape: ObservedShape = {
 *   type: 'object',
 *   properties: { id: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
 *   required: ['id'],
 * };
 * ```
 */
export type ObservedShape = AnyShape | ScalarShape | ArrayShape | ObjectShape | UnionShape;

/** Anything: `{}`. */
export interface AnyShape {
  readonly type?: undefined;
  readonly anyOf?: undefined;
}

/** A JSON scalar; integers and other numbers are one type (`number`). */
export interface ScalarShape {
  readonly type: 'null' | 'boolean' | 'number' | 'string';
  readonly anyOf?: undefined;
}

/** An array; `items` absent while no element was seen. */
export interface ArrayShape {
  readonly type: 'array';
  readonly items?: ObservedShape;
  readonly anyOf?: undefined;
}

/**
 * An object: its `properties` (and the `required` ones, present in every object seen), or, when
 * its keys look like data rather than structure, a map: `additionalProperties` only.
 */
export interface ObjectShape {
  readonly type: 'object';
  readonly properties?: Readonly<Record<string, ObservedShape>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: ObservedShape;
  readonly anyOf?: undefined;
}

/** Values of several kinds at one place: one variant per kind (`string | null`). */
export interface UnionShape {
  readonly type?: undefined;
  readonly anyOf: readonly ObservedShape[];
}

/** What kind of value a shape stands for; `union` holds variants of other kinds. */
export type ShapeKind = 'any' | 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'union';

/** The kind of a shape. */
export function shapeKind(shape: ObservedShape): ShapeKind {
  if (shape.anyOf !== undefined) return 'union';
  return shape.type ?? 'any';
}

/** A new properties record: no prototype, so a key such as `constructor` is only a key. */
export function propertiesRecord(): Record<string, ObservedShape> {
  return Object.create(null) as Record<string, ObservedShape>;
}

/** The kinds a value may be seen as, in the order variants are written. */
export const SCALAR_KINDS: ReadonlySet<string> = new Set(['null', 'boolean', 'number', 'string']);
