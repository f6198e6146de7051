import {
  type JSONSchema,
  RESERVED_WORDS,
  sharedSchemaClosure,
  sharedSchemaName,
  sharedSchemaRef,
  type ToolDocsInput,
} from '@cyrnel/sdk';
import { findDerivations } from './derived-types';
import { mergeStatuses } from './merge-statuses';
import { commentText, renderSchemaType } from './schema-type';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function key(id: string): string {
  return IDENTIFIER.test(id) ? id : JSON.stringify(id);
}

// The declarations go into an agent's prompt: comments are first sentences, on tools, the members
// of their parameters and results, and named declarations themselves only (GitHub's 5-tool
// selection was 55 KB with every nested member's full description).
function comment(text: string, pad: string): string {
  const clean = commentText(text, true);
  return clean ? `${pad}/** ${clean} */\n` : '';
}

// Objects without comments up to this long render on one line (`{ id?: number; name?: string }`),
// and members without comments share lines up to this long (GitHub's 5-tool selection: 26 KB with
// one member per line).
const INLINE_WIDTH = 100;
const PACK_WIDTH = 100;

/** The namespace the shared schemas of every service are declared in: `CyrnelSchemas.<service>.<name>`. */
export const SCHEMAS_NAMESPACE = 'CyrnelSchemas';

/** The namespace the tools of every service are declared in: `CyrnelTools.<service>`. */
export const TOOLS_NAMESPACE = 'CyrnelTools';

// Names a type alias cannot take (TS2457) besides the reserved words.
// `Record` and `Omit` too: declarations refer to each other unqualified inside their namespace,
// where a shared schema of that name would shadow the global one the declarations use.
const RESERVED_TYPE_NAMES = new Set([
  'Record',
  'Omit',
  'any',
  'unknown',
  'never',
  'string',
  'number',
  'boolean',
  'symbol',
  'object',
  'bigint',
  'undefined',
  'void',
  'null',
  'this',
  'intrinsic',
  'infer',
  'keyof',
  'readonly',
  'unique',
  'asserts',
  'is',
  'type',
  'namespace',
  'declare',
  'module',
  'global',
  'let',
  'await',
  'yield',
  'as',
  'satisfies',
  'of',
  'from',
  'get',
  'set',
  'constructor',
  'abstract',
  'implements',
  'interface',
  'package',
  'private',
  'protected',
  'public',
  'static',
]);

/** A TypeScript identifier for `name`, unique among `used` (compared case-sensitively). */
function identifierFor(name: string, used: Set<string>): string {
  let base = name.replace(/[^A-Za-z0-9_$]/g, '_');
  if (!/^[A-Za-z_$]/.test(base) || RESERVED_TYPE_NAMES.has(base) || RESERVED_WORDS.has(base))
    base = `_${base}`;
  let candidate = base;
  for (let n = 2; used.has(candidate); n++) candidate = `${base}_${n}`;
  used.add(candidate);
  return candidate;
}

/** The shared schema names a schema refers to outside object members and array elements. */
function directRefs(node: unknown, out: Set<string>): Set<string> {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return out;
  const record = node as Record<string, unknown>;
  if (typeof record.$ref === 'string') {
    const name = sharedSchemaName(record.$ref);
    if (name !== undefined) out.add(name);
    return out;
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const parts = record[key];
    if (Array.isArray(parts)) for (const part of parts) directRefs(part, out);
  }
  return out;
}

/**
 * The references that would make a type alias circular (`type A = B | string; type B = A & {...}`
 * is TS2456), as `from\u0000to`: the back edges of a depth-first walk over the direct references.
 */
function circularRefs(schemas: Readonly<Record<string, JSONSchema>>, names: readonly string[]): Set<string> {
  const broken = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const graph = new Map(names.map((name) => [name, [...directRefs(schemas[name], new Set())]]));
  for (const start of names) {
    if (state.has(start)) continue;
    const stack: { name: string; next: number }[] = [{ name: start, next: 0 }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { name: string; next: number };
      const edges = graph.get(top.name) ?? [];
      if (top.next >= edges.length) {
        state.set(top.name, 'done');
        stack.pop();
        continue;
      }
      const to = edges[top.next++] as string;
      if (!graph.has(to)) continue;
      const seen = state.get(to);
      if (seen === 'open') broken.add(`${top.name}\u0000${to}`);
      else if (seen === undefined) {
        state.set(to, 'open');
        stack.push({ name: to, next: 0 });
      }
    }
  }
  return broken;
}

const NOT_TYPE = new Set(['nullable', 'description', 'title']);

/**
 * A schema's JSON without its nullability and docs (`type: ['object', 'null']` counts as
 * `type: 'object'`), and whether it admits `null` that way.
 */
function nullableShape(schema: unknown): { key: string; nullable: boolean } | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const record = schema as Record<string, unknown>;
  let type = record.type;
  let nullable = record.nullable === true;
  if (Array.isArray(type) && type.includes('null')) {
    nullable = true;
    const rest = type.filter((name) => name !== 'null');
    type = rest.length === 1 ? rest[0] : rest;
  }
  const entries = Object.entries(record)
    .filter(([name]) => !NOT_TYPE.has(name))
    .map(([name, value]) => (name === 'type' ? [name, type] : [name, value]));
  return { key: JSON.stringify(entries), nullable };
}

/**
 * The schemas to declare: one that is another reached schema admitting `null` too (GitHub's
 * `nullable-repository` beside `repository`) becomes `{ anyOf: [{ $ref: other }, { type: 'null' }] }`,
 * so its members are declared once.
 */
function withNullableTwins(
  schemas: Readonly<Record<string, JSONSchema>>,
  names: readonly string[],
): Readonly<Record<string, JSONSchema>> {
  const plain = new Map<string, string>();
  for (const name of names) {
    const shape = nullableShape(schemas[name]);
    if (shape && !shape.nullable && !plain.has(shape.key)) plain.set(shape.key, name);
  }
  const twins: Record<string, JSONSchema> = {};
  for (const name of names) {
    const shape = nullableShape(schemas[name]);
    const other = shape?.nullable ? plain.get(shape.key) : undefined;
    if (other === undefined) continue;
    const description = schemas[name]?.description;
    twins[name] = {
      ...(typeof description === 'string' ? { description } : {}),
      anyOf: [{ $ref: sharedSchemaRef(other) }, { type: 'null' }],
    };
  }
  return Object.keys(twins).length === 0 ? schemas : { ...schemas, ...twins };
}

const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The comment of a named declaration: its description, unless that only restates the name
 * (GitHub's `full-repository`: "Full Repository", `nullable-license-simple`: "License Simple")
 * or repeats the declaration it is written from (a nullable twin, a derived declaration).
 */
function declarationComment(
  name: string,
  schemas: Readonly<Record<string, JSONSchema>>,
  given: Readonly<Record<string, JSONSchema>>,
  derivedFrom: string | undefined,
): string {
  const description = schemas[name]?.description;
  if (typeof description !== 'string') return '';
  if ([words(name), words(name).replace(/^nullable/, '')].includes(words(description))) return '';
  const options = schemas[name]?.anyOf;
  const first = Array.isArray(options) ? (options[0] as { $ref?: unknown } | undefined) : undefined;
  const twin = schemas[name] === given[name] ? undefined : sharedSchemaName(String(first?.$ref));
  const source = twin ?? derivedFrom;
  return source !== undefined && given[source]?.description === description ? '' : description;
}

interface ServiceTypes {
  readonly serviceId: string;
  readonly tools: ToolDocsInput[];
}

/** The named declarations of one service's shared schemas the given tools reach, and how to name them. */
function sharedDeclarations(service: ServiceTypes): {
  declarations: string;
  refType: (from: string | undefined) => (ref: string, direct: boolean) => string | null | undefined;
} {
  const given = service.tools.find((tool) => tool.schemas)?.schemas;
  const none = { declarations: '', refType: () => () => undefined };
  if (!given) return none;
  const reached = new Set<string>();
  for (const tool of service.tools) {
    for (const schema of [tool.inputSchema, tool.outputSchema])
      for (const name of Object.keys(sharedSchemaClosure(schema, given))) reached.add(name);
  }
  if (reached.size === 0) return none;
  const names = [...reached].sort();
  const schemas = withNullableTwins(given, names);
  const used = new Set<string>();
  const ids = new Map(names.map((name) => [name, identifierFor(name, used)]));
  const prefix = `${SCHEMAS_NAMESPACE}.${identifierFor(service.serviceId, new Set())}.`;
  const broken = circularRefs(schemas, names);
  // Inside the namespace its members are named unqualified; from the tools, qualified.
  const refType = (from: string | undefined) => (ref: string, direct: boolean) => {
    const name = sharedSchemaName(ref);
    const id = name === undefined ? undefined : ids.get(name);
    if (id === undefined) return undefined;
    if (from === undefined) return `${prefix}${id}`;
    return direct && broken.has(`${from}\u0000${name}`) ? null : id;
  };
  const memberType = (schema: unknown) => renderSchemaType(schema, { refType: refType('') });
  const derivations = findDerivations(schemas, names, memberType);
  const lines = names.map((name) => {
    const options = { indent: 1, inlineWidth: INLINE_WIDTH, packWidth: PACK_WIDTH, refType: refType(name) };
    const derived = derivations.get(name);
    let type = renderSchemaType(derived ? derived.own : schemas[name], options);
    if (derived) {
      const base =
        derived.omitted.length === 0
          ? ids.get(derived.base)
          : `Omit<${ids.get(derived.base)}, ${derived.omitted.map((member) => JSON.stringify(member)).join(' | ')}>`;
      type = type === 'Record<string, never>' ? `${base}` : `${base} & ${type}`;
      if (derived.nullable) type = `(${type}) | null`;
    }
    return `${comment(declarationComment(name, schemas, given, derived?.base), '  ')}  type ${ids.get(name)} = ${type};`;
  });
  const namespace = identifierFor(service.serviceId, new Set());
  return {
    declarations: `declare namespace ${SCHEMAS_NAMESPACE}.${namespace} {\n${lines.join('\n')}\n}`,
    refType,
  };
}

/** Options of {@link generateTypes}. */
export interface GenerateTypesOptions {
  /**
   * Services to declare even when no given tool is theirs (with no tools): a type check declares
   * the services a program names, so a tool it misspells is reported at the tool's name.
   */
  readonly services?: readonly string[];
}

/**
 * Ambient declarations of the sandbox globals (`declare const cyrnel: {...}`) covering every
 * given tool's input and output, for `GET /environment/types`. Shared schemas
 * (`ToolDocsInput.schemas`) become named types declared once, `CyrnelSchemas.<service>.<name>`,
 * and only those the given tools reach. Compiles with `tsc --strict`.
 */
export function generateTypes(tools: readonly ToolDocsInput[], options: GenerateTypesOptions = {}): string {
  const byService = new Map<string, ServiceTypes>();
  for (const serviceId of options.services ?? []) byService.set(serviceId, { serviceId, tools: [] });
  for (const tool of tools) {
    const entry = byService.get(tool.serviceId);
    if (entry) entry.tools.push(tool);
    else byService.set(tool.serviceId, { serviceId: tool.serviceId, tools: [tool] });
  }
  const namespaces: string[] = [];
  const interfaces: string[] = [];
  const services = [...byService.values()].map((service) => {
    const shared = sharedDeclarations(service);
    if (shared.declarations) namespaces.push(shared.declarations);
    const options = {
      inlineWidth: INLINE_WIDTH,
      packWidth: PACK_WIDTH,
      indent: 2,
      comments: 2,
      firstSentence: true,
      refType: shared.refType(undefined),
      // A member's comment once per service: GitHub's `owner` and `repo` are in most tools.
      writtenComments: new Set<string>(),
    };
    const members = service.tools.map((tool) => {
      const input = renderSchemaType(tool.inputSchema, options);
      const output = renderSchemaType(mergeStatuses(tool.outputSchema), options);
      return `${comment(tool.description, '    ')}    ${key(tool.toolId)}: { invoke(parameters: ${input}): Promise<${output}> };`;
    });
    const name = identifierFor(service.serviceId, new Set());
    interfaces.push(`  interface ${name} {\n${members.join('\n')}\n  }`);
    return `    ${key(service.serviceId)}: CyrnelService<${TOOLS_NAMESPACE}.${name}>;`;
  });
  const schemasBlock =
    namespaces.length > 0
      ? `/** Schemas shared by the tools of each service, declared once: \`${SCHEMAS_NAMESPACE}.<service>.<name>\`. */\n${namespaces.join('\n')}\n\n`
      : '';
  const toolsBlock =
    interfaces.length > 0
      ? `/** The tools of each service: \`${TOOLS_NAMESPACE}.<service>\`, reached as \`cyrnel.services.<service>.tools\`. */\ndeclare namespace ${TOOLS_NAMESPACE} {\n${interfaces.join('\n')}\n}\n\n`
      : '';
  return `${schemasBlock}${toolsBlock}/** A rejected tool call: the gate's HTTP status (or 502 for adapter failures), its stable code and reason. */
interface CyrnelToolError extends Error {
  status: number;
  /** Status class, e.g. 'conflict'. */
  code: string;
  /** What precisely went wrong, e.g. 'service_disabled' or 'tool_disabled'. */
  reason: string;
}

/**
 * A service's tools, called with the process's connection to it (its principal's own, or the
 * shared one); \`connection(name)\` calls them with another connection the principal may use.
 */
interface CyrnelService<Tools> {
  tools: Tools;
  /** The same tools with the connection named \`name\` (404 connection_not_found, 403 connection_forbidden). */
  connection(name: string): { tools: Tools };
}

/** A tool as discovery answers it. */
interface CyrnelToolSummary { serviceId: string; toolId: string; name: string; description: string }

/** The sandbox API of the typescript-ivm environment. */
declare const cyrnel: {
  /** Merge a JSON-serialisable plain object into the process output (shallow). */
  output(value: Record<string, unknown>): void;
  /** The same call as \`cyrnel.services[serviceId].tools[toolId].invoke(parameters)\`, by name. */
  invoke(serviceId: string, toolId: string, parameters?: Record<string, unknown>): Promise<unknown>;
  /** Tools by service id and tool id; every call goes through the host's invocation gate. */
  services: {
${services.join('\n')}
  };
  discover: {
    services(query?: { query?: string }): Promise<{ id: string; name: string; description: string; toolCount: number }[]>;
    tools(query?: { query?: string; serviceId?: string; limit?: number }): Promise<CyrnelToolSummary[]>;
    tool(serviceId: string, toolId: string): Promise<CyrnelToolSummary & { inputSchema: Record<string, unknown>; outputSchema: Record<string, unknown>; signature: string }>;
    /** These declarations for a selection: whole services and/or \`<serviceId>.<toolId>\` names. */
    types(selection?: { services?: string[]; tools?: string[] }): Promise<string>;
  };
  console: Console;
};

interface Console {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  debug(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
}
declare var console: Console;
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
declare function clearTimeout(id: number | undefined): void;
`;
}
