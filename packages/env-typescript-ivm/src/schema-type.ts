/** Options of {@link renderSchemaType}. */
export interface RenderSchemaOptions {
  /** Indentation of the first line's nested members (two spaces per level). */
  readonly indent?: number;
  /** Emit `/** description *\/` comments above object members. */
  readonly comments?: boolean;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_DEPTH = 24;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function literal(value: unknown): string {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return JSON.stringify(value);
  return 'unknown';
}

function union(parts: readonly string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

function wrap(type: string): string {
  return /[|&]/.test(type) && !/^[{[]/.test(type) ? `(${type})` : type;
}

function commentText(text: string): string {
  return text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim();
}

/**
 * Render a JSON Schema as a TypeScript type. Handles objects, arrays, tuples, enums, const,
 * unions (`anyOf`/`oneOf`/type arrays), `allOf`, `nullable` and local `$ref`s into `$defs` or
 * `definitions`; anything else degrades to `unknown`. Never throws.
 */
export function renderSchemaType(schema: unknown, options: RenderSchemaOptions = {}): string {
  const root = isRecord(schema) ? schema : {};
  const comments = options.comments ?? false;

  const resolve = (ref: string): unknown => {
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
    if (!match) return undefined;
    const defs = root[match[1] as string];
    const name = (match[2] as string).replace(/~1/g, '/').replace(/~0/g, '~');
    return isRecord(defs) ? defs[name] : undefined;
  };

  let depth = 0;
  const render = (node: unknown, level: number, refs: readonly string[]): string => {
    if (node === true || node === undefined) return 'unknown';
    if (node === false) return 'never';
    if (!isRecord(node) || depth > MAX_DEPTH) return 'unknown';
    depth++;
    try {
      const type = renderInner(node, level, refs);
      return node.nullable === true && type !== 'unknown' && type !== 'null' ? union([type, 'null']) : type;
    } finally {
      depth--;
    }
  };

  const renderObject = (node: Record<string, unknown>, level: number, refs: readonly string[]): string => {
    const props = isRecord(node.properties) ? node.properties : {};
    const required = new Set(
      Array.isArray(node.required) ? node.required.filter((r) => typeof r === 'string') : [],
    );
    const pad = '  '.repeat(level + 1);
    const lines: string[] = [];
    for (const [key, value] of Object.entries(props)) {
      const description = isRecord(value) && typeof value.description === 'string' ? value.description : '';
      if (comments && description) lines.push(`${pad}/** ${commentText(description)} */`);
      const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
      lines.push(`${pad}${name}${required.has(key) ? '' : '?'}: ${render(value, level + 1, refs)};`);
    }
    const extra = node.additionalProperties;
    if (
      isRecord(extra) ||
      (extra === undefined && lines.length === 0 && node.patternProperties === undefined)
    ) {
      lines.push(`${pad}[key: string]: ${render(isRecord(extra) ? extra : true, level + 1, refs)};`);
    } else if (extra === true || isRecord(node.patternProperties)) {
      lines.push(`${pad}[key: string]: unknown;`);
    }
    if (lines.length === 0) return 'Record<string, never>';
    return `{\n${lines.join('\n')}\n${'  '.repeat(level)}}`;
  };

  const renderInner = (node: Record<string, unknown>, level: number, refs: readonly string[]): string => {
    if (typeof node.$ref === 'string') {
      if (refs.includes(node.$ref)) return 'unknown';
      const target = resolve(node.$ref);
      return target === undefined ? 'unknown' : render(target, level, [...refs, node.$ref]);
    }
    if ('const' in node) return literal(node.const);
    if (Array.isArray(node.enum)) return union(node.enum.map(literal));
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = node[key];
      if (Array.isArray(options) && options.length > 0) {
        const base = { ...node, [key]: undefined };
        const hasBase = base.type !== undefined || base.properties !== undefined;
        const parts = options.map((option) =>
          render(
            isRecord(option) && hasBase ? { ...base, ...option, [key]: undefined } : option,
            level,
            refs,
          ),
        );
        return union(parts);
      }
    }
    if (Array.isArray(node.allOf) && node.allOf.length > 0) {
      const parts = node.allOf.map((part) => render(part, level, refs)).filter((p) => p !== 'unknown');
      return parts.length === 0 ? 'unknown' : [...new Set(parts)].map(wrap).join(' & ');
    }
    const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    if (types.length === 0) {
      if (node.properties !== undefined || node.additionalProperties !== undefined)
        return renderObject(node, level, refs);
      if (node.items !== undefined) return renderOne('array', node, level, refs);
      return 'unknown';
    }
    return union(types.map((t) => renderOne(t, node, level, refs)));
  };

  const renderOne = (
    type: unknown,
    node: Record<string, unknown>,
    level: number,
    refs: readonly string[],
  ): string => {
    switch (type) {
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'object':
        return renderObject(node, level, refs);
      case 'array': {
        const tuple = Array.isArray(node.prefixItems)
          ? node.prefixItems
          : Array.isArray(node.items)
            ? node.items
            : undefined;
        if (tuple) return `[${tuple.map((item) => render(item, level, refs)).join(', ')}]`;
        return `${wrap(render(node.items ?? true, level, refs))}[]`;
      }
      default:
        return 'unknown';
    }
  };

  return render(schema, options.indent ?? 0, []);
}
