/**
 * Schema nodes one example may visit. `$ref`s are followed, so definitions that require each
 * other several times per level would otherwise build an example of billions of values;
 * GitHub's largest example takes a few hundred.
 */
const MAX_EXAMPLE_NODES = 10_000;

/**
 * A plausible value for a JSON Schema, for copy-pasteable examples: `examples`, `example`,
 * `default`, `const`, the first enum member, then a placeholder of the type (`null` past
 * {@link MAX_EXAMPLE_NODES} nodes or 12 levels). Never throws.
 */
export function exampleValue(schema: unknown): unknown {
  let nodes = 0;
  const walk = (node: unknown, depth: number): unknown => {
    if (++nodes > MAX_EXAMPLE_NODES) return null;
    return exampleOf(node, schema, depth, walk);
  };
  return walk(schema, 0);
}

type Walk = (node: unknown, depth: number) => unknown;

function exampleOf(schema: unknown, root: unknown, depth: number, walk: Walk): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > 12) return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ('example' in s) return s.example;
  if ('default' in s) return s.default;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (typeof s.$ref === 'string') {
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(s.$ref);
    const defs =
      match && typeof root === 'object' && root !== null
        ? (root as Record<string, unknown>)[match[1] as string]
        : undefined;
    const target =
      defs && typeof defs === 'object' ? (defs as Record<string, unknown>)[match?.[2] as string] : undefined;
    return walk(target, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) {
      const first = options.find(
        (o) => !(typeof o === 'object' && o !== null && (o as Record<string, unknown>).type === 'null'),
      );
      return walk({ ...s, [key]: undefined, ...(first ?? options[0]) }, depth + 1);
    }
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'object' || (type === undefined && typeof s.properties === 'object')) {
    const props = (typeof s.properties === 'object' && s.properties) || {};
    const required = Array.isArray(s.required) ? s.required : [];
    const entries = Object.entries(props as Record<string, unknown>);
    const shown = entries.filter(([key]) => required.includes(key));
    const result: Record<string, unknown> = {};
    for (const [key, value] of shown.length > 0 ? shown : entries.slice(0, 3))
      result[key] = walk(value, depth + 1);
    return result;
  }
  switch (type) {
    case 'string':
      return s.format === 'date-time'
        ? '2024-01-01T00:00:00Z'
        : s.format === 'date'
          ? '2024-01-01'
          : 'string';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return false;
    case 'array':
      return s.items === undefined || Array.isArray(s.items) ? [] : [walk(s.items, depth + 1)];
    default:
      return null;
  }
}
