/**
 * A plausible value for a JSON Schema, for copy-pasteable examples: `examples`, `example`,
 * `default`, `const`, the first enum member, then a placeholder of the type. Never throws.
 */
export function exampleValue(schema: unknown, root: unknown = schema, depth = 0): unknown {
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
    return exampleValue(target, root, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) {
      const first = options.find(
        (o) => !(typeof o === 'object' && o !== null && (o as Record<string, unknown>).type === 'null'),
      );
      return exampleValue({ ...s, [key]: undefined, ...(first ?? options[0]) }, root, depth + 1);
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
      result[key] = exampleValue(value, root, depth + 1);
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
      return s.items === undefined || Array.isArray(s.items) ? [] : [exampleValue(s.items, root, depth + 1)];
    default:
      return null;
  }
}
