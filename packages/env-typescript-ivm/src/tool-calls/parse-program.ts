import { cyrnelError } from '@cyrnel/sdk';
import type { Node, Program } from 'acorn';
import { lazyPackage } from '../shared/lazy-package';
import { stripTypes, WRAPPER_LINE_OFFSET, wrapProgram } from '../shared/transpile';

/** acorn, loaded by the first program parsed (in the render worker, never on the host's thread). */
const acorn = lazyPackage<typeof import('acorn')>('acorn');

/** A program parsed as a sandbox runs it, with what the analysis needs to climb and cite it. */
export interface ParsedProgram {
  /** The script a sandbox runs: the code without types, in its wrapper. */
  readonly ast: Program;
  /** The parent of every node but the root. */
  readonly parents: ReadonlyMap<Node, Node>;
  /** The 1-based line of the submitted code where `node` starts. */
  line(node: Node): number;
  /** The JavaScript text of `node` (the submitted text without its types). */
  text(node: Node): string;
}

/**
 * A parser's error: its message and, when it has one, the 1-based line in the submitted code. A
 * `RangeError` (the stack ran out on deep nesting) is not the code's syntax: it goes on as it is.
 */
function notParsing(error: unknown, line: number | undefined): unknown {
  if (error instanceof RangeError) return error;
  // The parsers end their messages with `(line:column)`; the line is said once, in the code's terms.
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\(\d+:\d+\)$/, '');
  const where = line === undefined ? '' : ` at line ${line}`;
  return cyrnelError('invalid_request', `The code does not parse${where}: ${message}`);
}

function lineOf(error: unknown): number | undefined {
  const loc = (error as { loc?: { line?: unknown } } | null)?.loc;
  return typeof loc?.line === 'number' ? loc.line : undefined;
}

/** Nodes are the values with a string `type`; `loc` and the like have none. */
function isNode(value: unknown): value is Node {
  return (
    typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
  );
}

/**
 * The parent of every node, found with an explicit stack: a nesting the parser survived must not
 * overflow the stack here.
 */
function parentsOf(root: Node): Map<Node, Node> {
  const parents = new Map<Node, Node>();
  const stack: Node[] = [root];
  const visit = (child: unknown, parent: Node) => {
    if (!isNode(child)) return;
    parents.set(child, parent);
    stack.push(child);
  };
  for (let node = stack.pop(); node; node = stack.pop()) {
    const fields = node as unknown as Record<string, unknown>;
    for (const key in fields) {
      const value = fields[key];
      if (typeof value !== 'object' || value === null || key === 'loc' || key === 'range') continue;
      if (Array.isArray(value)) for (const child of value) visit(child, node);
      else visit(value, node);
    }
  }
  return parents;
}

/**
 * Parse `code` as a sandbox would run it: types stripped by sucrase (which keeps every line where
 * it was), wrapped in the program's async function, parsed by acorn as the strict script V8 gets.
 * Code that does not parse is a 400 `invalid_request` naming the line; code nested deeper than
 * the parsers' stack throws a `RangeError`.
 *
 * @example
 * ```ts
 * const program = parseProgram('const n: number = 1;\nawait cyrnel.invoke("a", "b", {});');
 * program.line(program.ast); // 0: the wrapper starts above the code
 * ```
 */
export function parseProgram(code: string): ParsedProgram {
  let source: string;
  try {
    source = wrapProgram(stripTypes(code));
  } catch (error) {
    throw notParsing(error, lineOf(error));
  }
  let ast: Program;
  try {
    ast = acorn().parse(source, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      locations: true,
      ranges: true,
    });
  } catch (error) {
    const line = lineOf(error);
    throw notParsing(error, line === undefined ? undefined : Math.max(1, line - WRAPPER_LINE_OFFSET));
  }
  return {
    ast,
    parents: parentsOf(ast),
    line: (node) => (node.loc?.start.line ?? 0) - WRAPPER_LINE_OFFSET,
    text: (node) => source.slice(node.start, node.end),
  };
}
