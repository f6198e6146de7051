import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTypes } from '../src';
import { resolveConfig } from '../src/host/config';
import { generateRuntimeDocs } from '../src/host/runtime-docs';
import { type startEnvironment as Start, startEnvironment } from './recording-bindings';

const docs = generateRuntimeDocs(resolveConfig());
const example = /```ts\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';

// The two tools of the example, shaped like the OpenAPI adapter's: slot parameters
// in, one `{ status, headers, body }` branch per documented response out.
const headers = { type: 'object', additionalProperties: { type: 'string' } };
const response = (status: number, body: unknown) => ({
  type: 'object',
  properties: { status: { const: status }, headers, body },
  required: ['status', 'headers', 'body'],
});
const slot = (properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const tools = [
  {
    serviceId: 'crm',
    toolId: 'getUser',
    description: 'Fetch one user',
    inputSchema: {
      type: 'object',
      properties: { path: slot({ id: { type: 'integer' } }, ['id']) },
      required: ['path'],
    },
    outputSchema: {
      oneOf: [
        response(200, slot({ id: { type: 'integer' }, email: { type: 'string' } }, ['id', 'email'])),
        response(404, { type: 'null' }),
      ],
    },
  },
  {
    serviceId: 'shop',
    toolId: 'listOrders',
    description: 'Orders of a customer',
    inputSchema: {
      type: 'object',
      properties: { query: slot({ email: { type: 'string' } }, ['email']) },
      required: ['query'],
    },
    outputSchema: {
      oneOf: [
        response(200, {
          type: 'array',
          items: slot({ id: { type: 'integer' }, state: { enum: ['open', 'shipped'] } }, ['id', 'state']),
        }),
        response(400, { type: 'string' }),
      ],
    },
  },
];

describe('runtime docs example', () => {
  let sandbox: Awaited<ReturnType<typeof Start>>;
  let userStatus = 200;
  beforeAll(async () => {
    sandbox = await startEnvironment(
      { poolSize: 1 },
      {
        'crm.getUser': (p) =>
          userStatus === 200
            ? {
                status: 200,
                headers: { 'content-type': 'application/json' },
                body: { id: (p.path as { id: number }).id, email: 'ada@example.com' },
              }
            : { status: userStatus, headers: {}, body: null },
        'shop.listOrders': () => ({
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: [
            { id: 1, state: 'open' },
            { id: 2, state: 'shipped' },
            { id: 3, state: 'open' },
          ],
        }),
      },
    );
  });
  afterAll(() => sandbox.env.teardown());

  it('is one short page with one example', () => {
    expect(example).toContain('.invoke({ path: { id: 42 } })');
    expect(docs.match(/```ts/g)).toHaveLength(1);
    expect(docs.length).toBeLessThan(4000);
  });

  it('runs as written against OpenAPI-shaped tools', async () => {
    userStatus = 200;
    const { exit, record } = await sandbox.run(example);
    expect(record.errors).toEqual([]);
    expect(exit).toBe('success');
    expect(record.output).toEqual({ openOrders: 2 });
    expect(record.calls).toEqual([
      { serviceId: 'crm', toolId: 'getUser', parameters: { path: { id: 42 } } },
      { serviceId: 'shop', toolId: 'listOrders', parameters: { query: { email: 'ada@example.com' } } },
    ]);
  });

  it('reports a non-2xx status the way it tells the reader to', async () => {
    userStatus = 404;
    const { exit, record } = await sandbox.run(example);
    expect(exit).toBe('success');
    expect(record.output).toEqual({ error: 'getUser answered 404' });
    expect(record.calls).toHaveLength(1);
  });

  it('compiles against the declarations generateTypes renders for those tools', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-docs-'));
    try {
      const declaration = join(dir, 'cyrnel.d.ts');
      const usage = join(dir, 'example.ts');
      writeFileSync(declaration, generateTypes(tools));
      writeFileSync(usage, `export {};\n${example}`);
      const program = ts.createProgram([declaration, usage], {
        noEmit: true,
        strict: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        lib: ['lib.es2023.d.ts'],
        types: [],
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
