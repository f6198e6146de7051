import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolDocsInput } from '@cyrnel/sdk';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { generateTypes } from '../src';

const dir = mkdtempSync(join(tmpdir(), 'cyrnel-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tools: ToolDocsInput[] = [
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

function diagnostics(code: string, lib: string[], declared: readonly ToolDocsInput[] = tools): string[] {
  const suffix = Math.random().toString(36).slice(2);
  const declaration = join(dir, `cyrnel-${lib.length}-${suffix}.d.ts`);
  const usage = join(dir, `usage-${lib.length}-${suffix}.ts`);
  writeFileSync(declaration, generateTypes(declared));
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
const byName: unknown = await cyrnel.invoke('crm', 'getUser', { id: 1 });
console.log(byName);
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

// A service's shared schemas (one object for all its tools), with the shapes that break `strict`.
const shared = {
  'simple-user': {
    type: 'object',
    description: 'A user',
    properties: { login: { type: 'string' }, 'x-rate': { type: 'integer' } },
    required: ['login'],
  },
  repository: {
    type: 'object',
    properties: {
      owner: { $ref: '#/$defs/simple-user' },
      parent: { $ref: '#/$defs/repository' },
      // TS2411 before: optional members beside a string index signature.
      links: {
        type: 'object',
        properties: { issues: { type: 'string' } },
        additionalProperties: { type: 'string' },
      },
      mixed: {
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
        additionalProperties: { type: 'string' },
      },
    },
    required: ['owner'],
  },
  // Circular through unions and intersections only (TS2456 unless broken).
  A: { anyOf: [{ $ref: '#/$defs/B' }, { type: 'string' }] },
  B: { allOf: [{ $ref: '#/$defs/A' }, { type: 'object', properties: { b: { type: 'number' } } }] },
  // The same members admitting null too (as adapter-openapi renders GitHub's nullable-simple-user).
  'nullable-simple-user': {
    type: ['object', 'null'],
    description: 'A user',
    properties: { login: { type: 'string' }, 'x-rate': { type: 'integer' } },
    required: ['login'],
  },
  string: { type: 'integer' },
  unused: { type: 'object', properties: { never: { type: 'string' } } },
};
const sharedTools: ToolDocsInput[] = [
  {
    serviceId: 'gh',
    toolId: 'repos_get',
    description: 'Get a repository',
    inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/A' }, s: { $ref: '#/$defs/string' } } },
    outputSchema: {
      type: 'object',
      properties: { body: { $ref: '#/$defs/repository' } },
      required: ['body'],
    },
    schemas: shared,
  },
  {
    serviceId: 'gh',
    toolId: 'users_get',
    description: 'Get a user',
    inputSchema: {},
    outputSchema: {
      type: 'object',
      properties: { user: { $ref: '#/$defs/simple-user' }, maybe: { $ref: '#/$defs/nullable-simple-user' } },
      required: ['user', 'maybe'],
    },
    schemas: shared,
  },
];

describe('generateTypes with shared schemas', () => {
  it('declares each reached shared schema once, by name, and compiles under strict', () => {
    const text = generateTypes(sharedTools);
    expect(text.match(/type simple_user = /g)).toHaveLength(1);
    expect(text).toContain('CyrnelSchemas.gh.simple_user');
    expect(text).not.toContain('type unused');
    // A nullable twin names its plain schema instead of repeating its members.
    expect(text).toContain('type nullable_simple_user = simple_user | null;');
    const code = `
const repo = await cyrnel.services.gh.tools.repos_get.invoke({ a: 'x', s: 1 });
const login: string = repo.body.owner.login;
const parent: string | undefined = repo.body.parent?.owner.login;
const issues: string | undefined = repo.body.links?.issues;
const { user, maybe } = await cyrnel.services.gh.tools.users_get.invoke({});
const maybeLogin: string | undefined = maybe?.login;
const types = await cyrnel.discover.types({ tools: ['gh.users_get'] });
const typed: CyrnelSchemas.gh.simple_user = user;
console.log(login, parent, issues, typed.login, maybeLogin, types.length);
`;
    expect(diagnostics(code, ['lib.es2023.d.ts'], sharedTools)).toEqual([]);
  });

  it('emits only what a selection reaches', () => {
    const text = generateTypes(sharedTools.slice(1));
    expect(text).toContain('type simple_user = ');
    expect(text).not.toContain('type repository');
  });

  it('writes a near-copy of another declaration as Omit<base, …> & {…}, exactly', () => {
    const members = Object.fromEntries(
      Array.from({ length: 14 }, (_, i) => [`field${i}_url`, { type: 'string' }]),
    );
    const base = {
      type: 'object',
      description: 'A repository.',
      properties: {
        ...members,
        pushed_at: { type: ['string', 'null'] },
        topics: { type: 'array', items: { type: 'string' } },
      },
      required: [...Object.keys(members), 'pushed_at'],
    };
    const full = {
      type: 'object',
      description: 'Full Repository',
      properties: { ...members, pushed_at: { type: 'string' }, network_count: { type: 'integer' } },
      required: [...Object.keys(members), 'pushed_at', 'network_count'],
    };
    const schemas = {
      repository: base,
      'full-repository': full,
      'nullable-full': { ...full, nullable: true },
    };
    const declared: ToolDocsInput[] = [
      {
        serviceId: 'gh',
        toolId: 'repos_get',
        description: 'Get a repository. More words.',
        inputSchema: {},
        outputSchema: {
          type: 'object',
          properties: {
            full: { $ref: '#/$defs/full-repository' },
            plain: { $ref: '#/$defs/repository' },
            maybe: { $ref: '#/$defs/nullable-full' },
          },
          required: ['full', 'plain', 'maybe'],
        },
        schemas,
      },
    ];
    const text = generateTypes(declared);
    expect(text).toContain(
      'type full_repository = Omit<repository, "pushed_at" | "topics"> & { pushed_at: string; network_count: number };',
    );
    // A description that only restates the name is left out; members without comments share lines.
    expect(text).not.toContain('/** Full Repository */');
    expect(text).toContain('field0_url: string; field1_url: string; field2_url: string;');
    const code = `
const { full, plain, maybe } = await cyrnel.services.gh.tools.repos_get.invoke({});
const pushed: string = full.pushed_at;
const count: number = full.network_count;
const url: string = full.field13_url;
const maybePushed: string | null = plain.pushed_at;
const nullable: number | undefined = maybe?.network_count;
console.log(pushed, count, url, maybePushed, nullable);
`;
    expect(diagnostics(code, ['lib.es2023.d.ts'], declared)).toEqual([]);
    // The derived declaration lacks what it omits: topics is not a member of a full repository.
    expect(
      diagnostics(
        'const r = await cyrnel.services.gh.tools.repos_get.invoke({});\nr.full.topics;',
        ['lib.es2023.d.ts'],
        declared,
      ).join('\n'),
    ).toContain("Property 'topics' does not exist");
  });

  it('keeps the first sentence of a comment and the text of its Markdown links', () => {
    const text = generateTypes([
      {
        serviceId: 'gh',
        toolId: 'issues_get',
        description: 'Returns a [`301` status](https://docs.example/redirects) when moved. Second sentence.',
        inputSchema: {},
        outputSchema: {},
      },
    ]);
    expect(text).toContain('/** Returns a `301` status when moved. */');
  });

  it("writes a member's comment once per service", () => {
    const owner = { type: 'string', description: 'The account owner of the repository.' };
    const tool = (toolId: string): ToolDocsInput => ({
      serviceId: 'gh',
      toolId,
      description: toolId,
      inputSchema: { type: 'object', properties: { owner }, required: ['owner'] },
      outputSchema: {},
    });
    const text = generateTypes([tool('a'), tool('b'), { ...tool('c'), serviceId: 'other' }]);
    expect(text.match(/The account owner of the repository/g)).toHaveLength(2);
  });
});
