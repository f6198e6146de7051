import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// server-everything is the MCP adapter's test dependency: resolved from there, started with this node.
const EVERYTHING = createRequire(join(ROOT, 'packages/adapter-mcp/package.json')).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

/** The MCP adapter's fixture server: answers of chosen depth, width and keys. */
export const FIXTURE = join(ROOT, 'packages/adapter-mcp/test/fixtures/fixture-server.mjs');

/** A stdio definition of `@modelcontextprotocol/server-everything` run by this node. */
export const everythingDefinition = (): string =>
  JSON.stringify({ transport: 'stdio', command: process.execPath, args: [EVERYTHING] });

/** Values the tests pass or the servers answer, which must never reach a declaration or a learned shape. */
const DISTINCTIVE = [
  'zebra-quartz-7781',
  '7342915',
  '7342918',
  'plum-velvet-3392',
  'Operation',
  'image/png',
  'iVBOR',
  'assistant',
];

/** Every distinctive value absent from `text`. */
export function expectNoValues(text: string): void {
  for (const value of DISTINCTIVE) expect(text).not.toContain(value);
}
