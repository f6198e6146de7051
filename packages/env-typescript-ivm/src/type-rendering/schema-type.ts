import { isPlainObject } from '@cyrnel/sdk';
import { commentText, cut } from './comment-text';

export { commentText, leadingSentence } from './comment-text';
/** Options of {@link renderSchemaType}. */
export interface RenderSchemaOptions {
  /** Indentation of the first line's nested members (two spaces per level). */
  readonly indent?: number;
  /**
   * Emit `/** description *\/` comments above object members: `true` for every member, a number
   * for the members of the outermost that many levels of objects only (`1`: the root's members).
   */
  readonly comments?: boolean | number;
  /** Cut each comment to its first sentence (declarations an agent reads in its prompt). */
  readonly firstSentence?: boolean;
  /** Cut each comment at a word before this many characters, with `…` (a budget's last resort before stubs). */
  readonly commentWidth?: number;
  /** Render an object without comments on one line (`{ a: string; b?: number; }`) when that is at most this long. Default 0: never. */
  readonly inlineWidth?: number;
  /**
   * Put consecutive one-line members without comments side by side on lines up to this long
   * (`id: number; name: string; url: string;`); a member with a comment keeps a line of its own.
   * Default 0: one member per line.
   */
  readonly packWidth?: number;
  /**
   * Comments already written, as `name\u0000comment`: a member named the same with the same comment
   * goes without it, and new ones are added (pass one set to several renderings, e.g. every tool
   * of a service, to write GitHub's `owner: The account owner of the repository` once).
   */
  readonly writtenComments?: Set<string>;
  /**
   * About the most characters to render; what lies beyond renders as `unknown` (an object cut
   * short gets an index signature). Default {@link MAX_SCHEMA_TYPE_LENGTH}.
   */
  readonly maxLength?: number;
  /**
   * Names a `$ref` as a declared type instead of inlining its target: a type name, `null` for
   * `unknown` (a reference that would make a type alias circular), or undefined to inline it.
   * `direct` is false inside object members and array elements, where TypeScript defers aliases.
   */
  readonly refType?: (ref: string, direct: boolean) => string | null | undefined;
  /**
   * Objects nested deeper than `depth` (the root object is 0) that do not fit on one line of
   * `inlineWidth` render as `CyrnelStub<"name">`, named by `name` from the member path to them (a
   * `*` stands for an index signature's value). `depth: -1` stubs every object.
   */
  readonly stub?: { readonly depth: number; readonly name: (path: readonly string[]) => string };
  /**
   * With `stub`: an enum of more values than this renders as a stub of their primitive types
   * (`CyrnelStub<"name", string>`), named by its member path (a budget's squeeze: Microsoft
   * Graph's `$select` lists every property of a user).
   */
  readonly stubEnums?: number;
  /**
   * Filled with what the text refers to: the `$ref`s named through `refType` (in `direct` too when
   * outside object members and array elements: an alias's or an intersection's parts) and the
   * stubs' names.
   */
  readonly record?: { readonly refs: string[]; readonly stubs: string[]; readonly direct?: string[] };
}

/** The type of a stub named `name` (see {@link RenderSchemaOptions.stub}): an object, or `shape`. */
export function stubType(name: string, shape?: string): string {
  return `CyrnelStub<${JSON.stringify(name)}${shape === undefined ? '' : `, ${shape}`}>`;
}

/**
 * Default `maxLength` of {@link renderSchemaType}: about six times GitHub's largest tool schema
 * (≈ 153,000 characters). `$ref`s are inlined, so a few kilobytes of definitions referring to
 * each other several times per level would otherwise render to gigabytes.
 */
export const MAX_SCHEMA_TYPE_LENGTH = 1_000_000;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_DEPTH = 24;
/** Characters charged per rendered node for its keywords, brackets and separators. */
const NODE_COST = 8;

function literal(value: unknown): Rendered {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value))
    return atom(JSON.stringify(value));
  return UNKNOWN;
}

/**
 * A rendered type and how tightly it binds, so composing types can bracket exactly where TypeScript
 * needs it: `A | B` inside `[]` or `&`, `A & B` inside `[]`.
 */
interface Rendered {
  readonly text: string;
  readonly kind: 'atom' | 'union' | 'intersection';
  /** The members of a union (flattened, so nested unions and `| null` never repeat). */
  readonly members?: readonly string[];
}

const UNKNOWN: Rendered = { text: 'unknown', kind: 'atom' };

function atom(text: string): Rendered {
  return { text, kind: 'atom' };
}

function union(parts: readonly Rendered[]): Rendered {
  const members = [...new Set(parts.flatMap((part) => part.members ?? [part.text]))];
  if (members.includes('unknown')) return UNKNOWN;
  if (members.length === 0) return atom('never');
  if (members.length === 1)
    return parts.find((part) => part.text === members[0]) ?? atom(members[0] as string);
  return { text: members.join(' | '), kind: 'union', members };
}

function intersection(parts: readonly Rendered[]): Rendered {
  const seen = new Set<string>();
  const unique = parts.filter((part) => !seen.has(part.text) && seen.add(part.text));
  if (unique.length === 1) return unique[0] as Rendered;
  return {
    text: unique.map((part) => (part.kind === 'union' ? `(${part.text})` : part.text)).join(' & '),
    kind: 'intersection',
  };
}

/** Bracket anything but an atom (for `T[]`). */
function element(type: Rendered): string {
  return type.kind === 'atom' ? type.text : `(${type.text})`;
}

/**
 * The index signature of an object with members: under `strict`, every member's type (with
 * `undefined` for an optional one) must be assignable to it (TS2411), so it is the index schema's
 * type when the members already fit it, else `unknown`.
 */
function indexType(index: Rendered, memberTypes: readonly string[]): string {
  if (memberTypes.length === 0 || index.text === 'unknown') return index.text;
  const admitted = new Set(index.members ?? [index.text]);
  const missing = [...new Set(memberTypes)].filter((type) => !admitted.has(type));
  if (missing.length === 0) return index.text;
  if (missing.length === 1 && missing[0] === 'undefined') return `${index.text} | undefined`;
  return 'unknown';
}

/**
 * Render a JSON Schema as a TypeScript type. Handles objects, arrays, tuples, enums, const,
 * unions (`anyOf`/`oneOf`/type arrays), `allOf`, `nullable` and local `$ref`s into `$defs` or
 * `definitions`; anything else degrades to `unknown`. Never throws.
 */
export function renderSchemaType(schema: unknown, options: RenderSchemaOptions = {}): string {
  const root = isPlainObject(schema) ? schema : {};
  const comments = options.comments ?? false;
  // Levels of objects entered, for a numeric `comments`.
  let objects = 0;
  const commenting = () => comments === true || (typeof comments === 'number' && objects < comments);
  // Charged for what each node adds itself (its children charge for theirs), so it bounds the
  // output and the nodes visited alike.
  let budget = options.maxLength ?? MAX_SCHEMA_TYPE_LENGTH;

  const resolve = (ref: string): unknown => {
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
    if (!match) return undefined;
    const defs = root[match[1] as string];
    const name = (match[2] as string).replace(/~1/g, '/').replace(/~0/g, '~');
    return isPlainObject(defs) ? defs[name] : undefined;
  };

  const charge = (type: Rendered): Rendered => {
    budget -= type.text.length;
    return type;
  };

  let depth = 0;
  // Inside object members and array elements a reference to a named type may be recursive.
  let deferred = 0;
  const inMember = <T>(task: () => T): T => {
    deferred++;
    try {
      return task();
    } finally {
      deferred--;
    }
  };
  const render = (node: unknown, level: number, refs: readonly string[]): Rendered => {
    if (node === true || node === undefined) return UNKNOWN;
    if (node === false) return atom('never');
    if (!isPlainObject(node) || depth > MAX_DEPTH || budget <= 0) return UNKNOWN;
    budget -= NODE_COST;
    depth++;
    try {
      const type = renderInner(node, level, refs);
      return node.nullable === true ? union([type, atom('null')]) : type;
    } finally {
      depth--;
    }
  };

  // The member names from the root to the object being rendered, for stub names.
  const path: string[] = [];
  const stub = options.stub;
  const record = options.record;

  // An object deeper than `stub.depth` is kept only when it fits on one line (rendered with that
  // little budget, so a large one costs no more than the line); else it is a stub.
  const renderObject = (node: Record<string, unknown>, level: number, refs: readonly string[]): Rendered => {
    if (!stub || objects <= stub.depth) return renderMembers(node, level, refs);
    const width = stub.depth < 0 ? 0 : (options.inlineWidth ?? 0);
    const saved = budget;
    const marks = [record?.refs.length ?? 0, record?.stubs.length ?? 0, record?.direct?.length ?? 0];
    budget = Math.min(saved, width);
    const small = width > 0 ? renderMembers(node, level, refs) : undefined;
    if (small && budget > 0 && !small.text.includes('\n') && small.text.length <= width) {
      budget = saved - small.text.length;
      return small;
    }
    if (record) {
      record.refs.length = marks[0] as number;
      record.stubs.length = marks[1] as number;
      if (record.direct) record.direct.length = marks[2] as number;
    }
    const name = stub.name(path);
    record?.stubs.push(name);
    const text = stubType(name);
    budget = saved - text.length;
    return atom(text);
  };

  const renderMembers = (node: Record<string, unknown>, level: number, refs: readonly string[]): Rendered => {
    const props = isPlainObject(node.properties) ? node.properties : {};
    const required = new Set(
      Array.isArray(node.required) ? node.required.filter((r) => typeof r === 'string') : [],
    );
    const pad = '  '.repeat(level + 1);
    // One entry per member (its comment, if any, on the line above it).
    const lines: { comment?: string; text: string }[] = [];
    // The types of the members, for an index signature that must admit them all (TS2411).
    const memberTypes: string[] = [];
    const commented = commenting();
    objects++;
    try {
      for (const [key, value] of Object.entries(props)) {
        if (budget <= 0) {
          // Cut short: the members left out may still be passed.
          lines.push({ text: '[key: string]: unknown;' });
          return atom(layoutObject(lines, level));
        }
        const description =
          isPlainObject(value) && typeof value.description === 'string' ? value.description : '';
        const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
        let comment =
          commented && description
            ? `/** ${cut(commentText(description, options.firstSentence), options.commentWidth)} */`
            : undefined;
        const written = options.writtenComments;
        if (comment && written) {
          const seen = `${name}\u0000${comment}`;
          if (written.has(seen)) comment = undefined;
          else written.add(seen);
        }
        if (comment) budget -= pad.length + comment.length;
        budget -= pad.length + name.length + 4;
        const optional = !required.has(key);
        path.push(key);
        const type = inMember(() => render(value, level + 1, refs));
        path.pop();
        memberTypes.push(...(type.members ?? [type.text]), ...(optional ? ['undefined'] : []));
        lines.push({ ...(comment ? { comment } : {}), text: `${name}${optional ? '?' : ''}: ${type.text};` });
      }
      const extra = node.additionalProperties;
      if (
        isPlainObject(extra) ||
        (extra === undefined && lines.length === 0 && node.patternProperties === undefined)
      ) {
        path.push('*');
        const index = inMember(() => render(isPlainObject(extra) ? extra : true, level + 1, refs));
        path.pop();
        lines.push({ text: `[key: string]: ${indexType(index, memberTypes)};` });
      } else if (extra === true || isPlainObject(node.patternProperties)) {
        lines.push({ text: '[key: string]: unknown;' });
      }
    } finally {
      objects--;
    }
    if (lines.length === 0) return atom('Record<string, never>');
    const width = options.inlineWidth ?? 0;
    if (width > 0 && lines.every((line) => !line.comment && !line.text.includes('\n'))) {
      const inline = `{ ${lines
        .map((line) => line.text)
        .join(' ')
        .slice(0, -1)} }`;
      if (inline.length <= width) return atom(inline);
    }
    return atom(layoutObject(lines, level));
  };

  // The members of an object on lines of their own, or packed up to `packWidth`.
  const layoutObject = (members: readonly { comment?: string; text: string }[], level: number): string => {
    const pad = '  '.repeat(level + 1);
    const width = options.packWidth ?? 0;
    const out: string[] = [];
    let packing = false;
    for (const member of members) {
      if (member.comment) out.push(`${pad}${member.comment}`);
      const packable = width > 0 && !member.comment && !member.text.includes('\n');
      const last = out.length - 1;
      if (packable && packing && (out[last] as string).length + 1 + member.text.length <= width)
        out[last] = `${out[last]} ${member.text}`;
      else out.push(`${pad}${member.text}`);
      packing = packable;
    }
    return `{\n${out.join('\n')}\n${'  '.repeat(level)}}`;
  };

  const renderInner = (node: Record<string, unknown>, level: number, refs: readonly string[]): Rendered => {
    if (typeof node.$ref === 'string') {
      const named = options.refType?.(node.$ref, deferred === 0);
      if (named === null) return UNKNOWN;
      if (named !== undefined) {
        budget -= named.length;
        options.record?.refs.push(node.$ref);
        if (deferred === 0) options.record?.direct?.push(node.$ref);
        return atom(named);
      }
      if (refs.includes(node.$ref)) return UNKNOWN;
      const target = resolve(node.$ref);
      return target === undefined ? UNKNOWN : render(target, level, [...refs, node.$ref]);
    }
    if ('const' in node) return charge(literal(node.const));
    if (Array.isArray(node.enum)) {
      const many = stub && options.stubEnums !== undefined && node.enum.length > options.stubEnums;
      if (!many) return union(node.enum.map((value) => charge(literal(value))));
      const kinds = [...new Set(node.enum.map((value) => (value === null ? 'null' : typeof value)))];
      const name = stub.name(path);
      record?.stubs.push(name);
      return charge(atom(stubType(name, kinds.length === 1 ? kinds[0] : kinds.join(' | '))));
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = node[key];
      if (Array.isArray(options) && options.length > 0) {
        const base = { ...node, [key]: undefined };
        const hasBase = base.type !== undefined || base.properties !== undefined;
        const parts = options.map((option) =>
          render(
            isPlainObject(option) && hasBase ? { ...base, ...option, [key]: undefined } : option,
            level,
            refs,
          ),
        );
        return union(parts);
      }
    }
    if (Array.isArray(node.allOf) && node.allOf.length > 0) {
      const parts = node.allOf.map((part) => render(part, level, refs)).filter((p) => p.text !== 'unknown');
      return parts.length === 0 ? UNKNOWN : intersection(parts);
    }
    const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    if (types.length === 0) {
      if (node.properties !== undefined || node.additionalProperties !== undefined)
        return renderObject(node, level, refs);
      if (node.items !== undefined) return renderOne('array', node, level, refs);
      return UNKNOWN;
    }
    return union(types.map((t) => renderOne(t, node, level, refs)));
  };

  const renderOne = (
    type: unknown,
    node: Record<string, unknown>,
    level: number,
    refs: readonly string[],
  ): Rendered => {
    switch (type) {
      case 'string':
        return atom('string');
      case 'number':
      case 'integer':
        return atom('number');
      case 'boolean':
        return atom('boolean');
      case 'null':
        return atom('null');
      case 'object':
        return renderObject(node, level, refs);
      case 'array': {
        const tuple = Array.isArray(node.prefixItems)
          ? node.prefixItems
          : Array.isArray(node.items)
            ? node.items
            : undefined;
        if (tuple)
          return atom(`[${inMember(() => tuple.map((item) => render(item, level, refs).text)).join(', ')}]`);
        return atom(`${element(inMember(() => render(node.items ?? true, level, refs)))}[]`);
      }
      default:
        return UNKNOWN;
    }
  };

  return render(schema, options.indent ?? 0, []).text;
}
