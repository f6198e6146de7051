import { cyrnelError, type FoundToolCall, type FoundToolCalls } from '@cyrnel/sdk';
import type {
  CallExpression,
  MemberExpression,
  Node,
  Pattern,
  Property,
  VariableDeclaration,
  VariableDeclarator,
} from 'acorn';
import type { ScopeManager, Variable } from 'eslint-scope';
import { lazyPackage } from '../shared/lazy-package';
import { type ParsedProgram, parseProgram } from './parse-program';
import { ROOTS, step, type ToolPath } from './tool-path';

/** eslint-scope, loaded by the first analysis (in the render worker, never on the host's thread). */
const eslintScope = lazyPackage<typeof import('eslint-scope')>('eslint-scope');

/** Characters of an unknown call site's text. */
const TEXT_LIMIT = 200;

interface Analysis {
  readonly program: ParsedProgram;
  readonly scopes: ScopeManager;
  /** Expressions still to follow, each holding a path towards a tool. */
  readonly work: [Node, ToolPath][];
  readonly calls: { readonly start: number; readonly call: FoundToolCall }[];
  readonly unknown: { readonly start: number; readonly line: number; readonly text: string }[];
  /** Constants already followed (a constant read in its own initialiser would loop). */
  readonly followed: Set<Variable>;
  readonly flagged: Set<Node>;
}

/**
 * A name written literally: a string literal or a template without substitutions, or with
 * `numbers` a number literal too (a property key, which the runtime receives as a string).
 */
function literalName(node: Node, numbers = true): string | undefined {
  if (node.type === 'Literal') {
    const { value } = node as Node & { value: unknown };
    if (typeof value === 'string') return value;
    return numbers && typeof value === 'number' ? String(value) : undefined;
  }
  if (node.type === 'TemplateLiteral') {
    const template = node as Node & {
      expressions: unknown[];
      quasis: { value: { cooked?: string | null } }[];
    };
    const cooked = template.expressions.length === 0 ? template.quasis[0]?.value.cooked : undefined;
    return typeof cooked === 'string' ? cooked : undefined;
  }
  return undefined;
}

/** The property name of `object.name`, `object['name']`, `{ name }`; undefined when computed at run time. */
function keyOf(node: MemberExpression | Property): string | undefined {
  const key = 'property' in node ? node.property : node.key;
  if (!node.computed && key.type === 'Identifier') return (key as Node & { name: string }).name;
  return literalName(key);
}

/** Nodes of a pattern taken apart by a declaration: its text is the whole declarator's. */
const PATTERN_PARTS = new Set([
  'ObjectPattern',
  'ArrayPattern',
  'RestElement',
  'AssignmentPattern',
  'Property',
]);
/** Where a value is handed on: the text shows the whole of it. */
const AROUND = new Set(['VariableDeclarator', 'AssignmentExpression', 'CallExpression', 'NewExpression']);

/** The text shown for an unknown call site: the whole chain, call or declaration around `node`. */
function extentOf(program: ParsedProgram, node: Node): Node {
  let at = node;
  for (let parent = program.parents.get(at); parent; parent = program.parents.get(at)) {
    const p = parent as Node & { object?: Node; callee?: Node };
    const chained =
      parent.type === 'ChainExpression' ||
      (parent.type === 'MemberExpression' && p.object === at) ||
      (parent.type === 'CallExpression' && p.callee === at) ||
      (PATTERN_PARTS.has(at.type) &&
        (PATTERN_PARTS.has(parent.type) || parent.type === 'VariableDeclarator'));
    if (!chained) return AROUND.has(parent.type) ? parent : at;
    at = parent;
  }
  return at;
}

function cut(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= TEXT_LIMIT) return flat;
  // Never half of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(flat.charAt(TEXT_LIMIT - 1)) ? TEXT_LIMIT - 1 : TEXT_LIMIT;
  return flat.slice(0, end);
}

/** An unknown call site at `node`, listed once per text around it (see {@link extentOf}). */
function flag(a: Analysis, node: Node): void {
  const extent = extentOf(a.program, node);
  if (a.flagged.has(extent)) return;
  a.flagged.add(extent);
  a.unknown.push({ start: node.start, line: a.program.line(node), text: cut(a.program.text(extent)) });
}

function found(a: Analysis, node: Node, serviceId: string, toolId: string): void {
  a.calls.push({ start: node.start, call: { serviceId, toolId, line: a.program.line(node) } });
}

/**
 * `cyrnel.invoke(service, tool, …)`: a call site when both ids are written literally, as strings
 * (the gate refuses other ids, so those call nothing, but they are shown for what they are).
 */
function invokeCall(a: Analysis, call: CallExpression): void {
  const [service, tool] = call.arguments;
  const serviceId = service && service.type !== 'SpreadElement' ? literalName(service, false) : undefined;
  const toolId = tool && tool.type !== 'SpreadElement' ? literalName(tool, false) : undefined;
  if (serviceId !== undefined && toolId !== undefined) found(a, call, serviceId, toolId);
  else flag(a, call);
}

/** A constant (or the names a constant's pattern takes apart) holding `path`: follow each of its reads. */
function bind(a: Analysis, pattern: Pattern, path: ToolPath, declarator: VariableDeclarator): void {
  switch (pattern.type) {
    case 'Identifier': {
      const variable = a.scopes
        .getDeclaredVariables(declarator as never)
        .find((v) => v.identifiers.some((id) => id === (pattern as unknown)));
      if (!variable || a.followed.has(variable)) return;
      a.followed.add(variable);
      for (const reference of variable.references)
        if (!reference.init && reference.isRead())
          a.work.push([reference.identifier as unknown as Node, path]);
      return;
    }
    case 'ObjectPattern':
      for (const property of pattern.properties) {
        if (property.type === 'RestElement') {
          flag(a, property);
          continue;
        }
        const next = step(path, keyOf(property as unknown as Property));
        if (next.kind === 'none') continue;
        if (next.kind === 'unknown') flag(a, property);
        else if (next.kind === 'tool') found(a, property, next.serviceId, next.toolId);
        else bind(a, property.value, next, declarator);
      }
      return;
    case 'AssignmentPattern':
      bind(a, pattern.left, path, declarator);
      return;
    default:
      flag(a, pattern);
  }
}

/** Uses that only look at a value: a bare statement, `typeof`, the right side of `instanceof`. */
function inert(node: Node, parent: Node | undefined): boolean {
  const p = parent as (Node & { operator?: string; right?: Node }) | undefined;
  if (p?.type === 'ExpressionStatement') return true;
  if (p?.type === 'UnaryExpression') return p.operator === 'typeof';
  return p?.type === 'BinaryExpression' && p.operator === 'instanceof' && p.right === node;
}

/** Where an expression holding `path` ends up, once no property of it is read any further. */
function settle(a: Analysis, node: Node, parent: Node, path: ToolPath): void {
  if (parent.type === 'CallExpression' && (parent as CallExpression).callee === node) {
    // Calling anything else on the way to a tool throws: it is not a function.
    if (path.kind === 'invoke') invokeCall(a, parent as CallExpression);
    return;
  }
  if (parent.type === 'VariableDeclarator') {
    const declarator = parent as VariableDeclarator;
    const declaration = a.program.parents.get(declarator) as VariableDeclaration | undefined;
    // Only a constant holds one value for good; a `let` may be given another one.
    if (declarator.init === node && declaration?.kind === 'const') {
      bind(a, declarator.id, path, declarator);
      return;
    }
  }
  if (inert(node, parent)) return;
  // Handed on, stored, returned, compared…: where it goes is decided at run time.
  flag(a, node);
}

/** Climb from an expression holding `path` through the properties read of it. */
function follow(a: Analysis, start: Node, initial: ToolPath): void {
  let node = start;
  let path = initial;
  for (let parent = a.program.parents.get(node); parent; parent = a.program.parents.get(node)) {
    if (parent.type === 'ChainExpression') {
      node = parent;
      continue;
    }
    const member = parent as MemberExpression;
    if (parent.type !== 'MemberExpression' || member.object !== node) {
      settle(a, node, parent, path);
      return;
    }
    const next = step(path, keyOf(member));
    if (next.kind === 'none') return;
    if (next.kind === 'tool') {
      found(a, member, next.serviceId, next.toolId);
      return;
    }
    if (next.kind === 'unknown') {
      flag(a, member);
      return;
    }
    node = member;
    path = next;
  }
}

/**
 * `x.constructor(…)` reaches `Function` without naming it (`cyrnel.constructor.constructor`),
 * which runs code built at run time; reading `.constructor.name` does not.
 */
function flagConstructors(a: Analysis): void {
  for (const [node, parent] of a.program.parents) {
    if (node.type !== 'MemberExpression' || keyOf(node as MemberExpression) !== 'constructor') continue;
    const member = parent as MemberExpression;
    if (parent.type === 'MemberExpression' && member.object === node && keyOf(member) === 'name') continue;
    flag(a, node);
  }
}

/**
 * The tool calls a program can make, found in its text without running it (plan approval). A call
 * site is every place a tool is named with literal ids, invoked or not:
 * `cyrnel.services.x.tools.y`, with bracketed string literals or templates without substitutions,
 * through constants and destructuring (`const { tools } = cyrnel.services.x; tools.y`), and
 * `cyrnel.invoke('x', 'y', …)`. Every other use of `cyrnel.services`, `cyrnel.invoke`,
 * `cyrnel` or `globalThis` that could reach a tool (a computed name, a `let`, an argument), and
 * `eval`, `Function` and `.constructor(…)`, are `unknown`. Lines are those of the submitted
 * TypeScript. Throws a 400 `invalid_request` naming the line when the code does not parse, or
 * when it nests deeper than the parsers' stack. It runs on the calling thread, and deep nesting
 * costs that thread's stack: the environment's `findToolCalls` runs it in a worker thread.
 *
 * @example
 * ```ts
 * findToolCalls("const s = 'github';\nawait cyrnel.invoke(s, 'issues_list', {});\nawait cyrnel.services.github.tools.issues_get.invoke({ n: 1 });");
 * // { calls: [{ serviceId: 'github', toolId: 'issues_get', line: 3 }],
 * //   unknown: [{ line: 2, text: "cyrnel.invoke(s, 'issues_list', {})" }] }
 * ```
 */
export function findToolCalls(code: string): FoundToolCalls {
  try {
    return analyse(code);
  } catch (error) {
    // The parser and the scope analysis recurse per level of nesting: deep enough, the stack
    // runs out before the text does.
    if (error instanceof RangeError)
      throw cyrnelError('invalid_request', 'The code is nested too deeply to be analysed');
    throw error;
  }
}

function analyse(code: string): FoundToolCalls {
  const program = parseProgram(code);
  // `eval` is reported as unknown on its own; ignoring it keeps every name resolved statically.
  const scopes = eslintScope().analyze(program.ast as never, {
    ecmaVersion: 2022,
    sourceType: 'script',
    ignoreEval: true,
  });
  const a: Analysis = {
    program,
    scopes,
    work: [],
    calls: [],
    unknown: [],
    followed: new Set(),
    flagged: new Set(),
  };
  for (const reference of scopes.globalScope?.through ?? []) {
    const root = Object.hasOwn(ROOTS, reference.identifier.name)
      ? ROOTS[reference.identifier.name]
      : undefined;
    const node = reference.identifier as unknown as Node;
    if (root === 'unknown') {
      if (!inert(node, program.parents.get(node))) flag(a, node);
    } else if (root) a.work.push([node, root]);
  }
  for (let item = a.work.pop(); item; item = a.work.pop()) follow(a, item[0], item[1]);
  flagConstructors(a);
  return {
    calls: a.calls.sort((x, y) => x.start - y.start).map(({ call }) => call),
    unknown: a.unknown.sort((x, y) => x.start - y.start).map(({ line, text }) => ({ line, text })),
  };
}
