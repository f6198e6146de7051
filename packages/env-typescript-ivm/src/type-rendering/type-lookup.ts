import { isPlainObject, type JSONSchema, type ToolDocsInput } from '@cyrnel/sdk';
import { mergeStatuses } from './merge-statuses';

/** What a name asked for (`types: [...]`) stands for: a shared schema, or a member's type. */
export type TypeTarget =
  | { readonly kind: 'schema'; readonly serviceId: string; readonly label: string; readonly name: string }
  | {
      readonly kind: 'member';
      readonly serviceId: string;
      readonly label: string;
      readonly schema: JSONSchema;
    };

/** What a service offers to look names up in: its shared schemas and the tools at hand. */
export interface LookupSource {
  readonly schemas: Readonly<Record<string, JSONSchema>> | undefined;
  /** Shared schema names by their TypeScript identifier, so a declaration's own name works too. */
  readonly byIdentifier: ReadonlyMap<string, string>;
  readonly tools: ReadonlyMap<string, ToolDocsInput>;
}

/** The schemas one step down a member path: a member by name, or `*` for an index signature's value. */
function children(node: unknown, member: string, out: unknown[], seen: Set<unknown>): void {
  if (!isPlainObject(node) || seen.has(node)) return;
  seen.add(node);
  if (member === '*' && isPlainObject(node.additionalProperties)) out.push(node.additionalProperties);
  if (member !== '*' && isPlainObject(node.properties) && Object.hasOwn(node.properties, member))
    out.push(node.properties[member]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const parts = node[key];
    if (Array.isArray(parts)) for (const part of parts) children(part, member, out, seen);
  }
  if (Array.isArray(node.items)) for (const item of node.items) children(item, member, out, seen);
  else children(node.items, member, out, seen);
}

/** The member names of the objects a node may be (through unions, compositions and arrays). */
function memberNames(node: unknown, out: Set<string>, seen: Set<unknown>): Set<string> {
  if (!isPlainObject(node) || seen.has(node)) return out;
  seen.add(node);
  if (isPlainObject(node.properties)) for (const name of Object.keys(node.properties)) out.add(name);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const parts = node[key];
    if (Array.isArray(parts)) for (const part of parts) memberNames(part, out, seen);
  }
  if (Array.isArray(node.items)) for (const item of node.items) memberNames(item, out, seen);
  else memberNames(node.items, out, seen);
  return out;
}

/**
 * The types a dotted member path reaches from `root`, or undefined when it reaches none. Member
 * names may hold dots themselves (`"a.b"`), so each step tries every member the text starts with.
 */
function walk(root: unknown, rest: string): unknown[] | undefined {
  let frontier: { node: unknown; rest: string }[] = [{ node: root, rest }];
  const found: unknown[] = [];
  // A path has at most as many steps as it has characters; this bounds hostile input.
  for (let step = 0; frontier.length > 0 && step <= rest.length; step++) {
    const next: { node: unknown; rest: string }[] = [];
    for (const { node, rest: left } of frontier) {
      const names = memberNames(node, new Set(['*']), new Set());
      for (const name of names) {
        if (left !== name && !left.startsWith(`${name}.`)) continue;
        const reached: unknown[] = [];
        children(node, name, reached, new Set());
        for (const child of reached)
          if (left === name) found.push(child);
          else next.push({ node: child, rest: left.slice(name.length + 1) });
      }
    }
    frontier = next.slice(0, 64);
  }
  return found.length > 0 ? found : undefined;
}

const one = (types: unknown[]): JSONSchema =>
  (types.length === 1 ? types[0] : { anyOf: types }) as JSONSchema;

/**
 * Resolve a stub's name, `<serviceId>.<rest>`: `rest` is a shared schema's name (or its
 * identifier), a member path inside one (`customer.address`), or a member path of a tool's
 * parameters or result (`PostCharges.body.shipping`, `GetCharges.result.body.data`).
 * Undefined when the name reaches nothing.
 *
 * @example
 * ```ts
 * lookupType('stripe.customer', sources); // { kind: 'schema', serviceId: 'stripe', label: 'stripe.customer', name: 'customer' }
 * ```
 */
export function lookupType(
  label: string,
  sources: ReadonlyMap<string, LookupSource>,
): TypeTarget | undefined {
  const dot = label.indexOf('.');
  if (dot <= 0) return undefined;
  const serviceId = label.slice(0, dot);
  const rest = label.slice(dot + 1);
  const source = sources.get(serviceId);
  if (!source || rest === '') return undefined;
  const schemas = source.schemas ?? {};
  const named = Object.hasOwn(schemas, rest) ? rest : source.byIdentifier.get(rest);
  if (named !== undefined) return { kind: 'schema', serviceId, label, name: named };
  // The longest shared schema name the path starts with, then the members below it.
  for (let end = rest.lastIndexOf('.'); end > 0; end = rest.lastIndexOf('.', end - 1)) {
    const head = rest.slice(0, end);
    const name = Object.hasOwn(schemas, head) ? head : source.byIdentifier.get(head);
    if (name === undefined) continue;
    const types = walk(schemas[name], rest.slice(end + 1));
    if (types) return { kind: 'member', serviceId, label, schema: one(types) };
  }
  // A tool's parameters by their member path, its result's under `result` (both, should a
  // parameter be named `result`).
  for (const [toolId, tool] of source.tools) {
    if (!rest.startsWith(`${toolId}.`)) continue;
    const path = rest.slice(toolId.length + 1);
    const types = [
      ...(walk(tool.inputSchema, path) ?? []),
      ...(path.startsWith('result.') ? (walk(mergeStatuses(tool.outputSchema), path.slice(7)) ?? []) : []),
    ];
    if (types.length > 0) return { kind: 'member', serviceId, label, schema: one(types) };
  }
  return undefined;
}
