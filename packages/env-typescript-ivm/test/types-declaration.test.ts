import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { generateTypes } from '../src';

const dir = mkdtempSync(join(tmpdir(), 'cyrnel-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tools = [
  {
    serviceId: 'crm',
    toolId: 'getUser',
    description: 'Fetch one user */ with a tricky comment',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'integer' } },
      required: ['id'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { email: { type: 'string' }, role: { enum: ['admin', 'user'] } },
      required: ['email', 'role'],
      additionalProperties: false,
    },
  },
  {
    serviceId: 'crm',
    toolId: 'search',
    description: 'Search',
    inputSchema: { type: 'object', properties: { q: { type: ['string', 'null'] } }, $defs: {} },
    outputSchema: { type: 'array', items: { $ref: '#/$defs/Missing' } },
  },
  { serviceId: 'shop', toolId: 'ping', description: '', inputSchema: {}, outputSchema: true as never },
  {
    serviceId: 'shop',
    toolId: 'slots',
    description: 'Arrays of nullable and oneOf objects must bracket their element type',
    inputSchema: {},
    outputSchema: {
      type: 'object',
      properties: {
        maybe: {
          type: 'array',
          items: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], nullable: true },
        },
        either: {
          type: 'array',
          items: {
            oneOf: [
              { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
              { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
            ],
          },
        },
      },
      required: ['maybe', 'either'],
    },
  },
];

function diagnostics(code: string, lib: string[]): string[] {
  const declaration = join(dir, `cyrnel-${lib.length}.d.ts`);
  const usage = join(dir, `usage-${lib.length}-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(declaration, generateTypes(tools));
  writeFileSync(usage, `export {};\n${code}\n`);
  const program = ts.createProgram([declaration, usage], {
    noEmit: true,
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    lib,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const GOOD = `
const user = await cyrnel.services.crm.tools.getUser.invoke({ id: 1 });
const role: 'admin' | 'user' = user.role;
const found = await cyrnel.services.crm.tools.search.invoke({ q: null });
await cyrnel.services.shop.tools.ping.invoke({});
console.log(role, found.length, user.email.toUpperCase());
const t = setTimeout(() => {}, 10); clearTimeout(t);
const slots = await cyrnel.services.shop.tools.slots.invoke({});
const lengths: number[] = slots.maybe.map((m) => m?.a.length ?? 0);
const kinds: string[] = slots.either.map((e) => ('a' in e ? e.a : String(e.b)));
console.log(lengths, kinds);
const tools = await cyrnel.discover.tools({ query: 'user' });
cyrnel.output({ first: tools[0]?.toolId ?? null });
`;

describe('generateTypes', () => {
  it('compiles with tsc and types every tool input and output (ES lib only)', () => {
    expect(diagnostics(GOOD, ['lib.es2023.d.ts'])).toEqual([]);
  });

  it('merges with the DOM lib declarations of console and timers', () => {
    expect(diagnostics(GOOD, ['lib.es2023.d.ts', 'lib.dom.d.ts'])).toEqual([]);
  });

  it('rejects wrong parameter and result types', () => {
    const problems = diagnostics(
      `await cyrnel.services.crm.tools.getUser.invoke({ id: 'x' });
       const n: number = (await cyrnel.services.crm.tools.getUser.invoke({ id: 1 })).email;
       await cyrnel.services.nope.tools.x.invoke({});`,
      ['lib.es2023.d.ts'],
    );
    expect(problems).toHaveLength(3);
  });
});
