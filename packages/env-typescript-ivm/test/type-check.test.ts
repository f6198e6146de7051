import { isCyrnelError, type ToolDocsInput, type ToolName, type TypeCheckContext } from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnvironment } from './recording-bindings';

let env: Awaited<ReturnType<typeof startEnvironment>>['env'];

beforeAll(async () => {
  ({ env } = await startEnvironment());
});
afterAll(() => env.teardown());

/** A catalog of one service, `shop`, with `getUser({ path: { id: number } })` answering `{ name }`. */
const SHOP: ToolDocsInput[] = [
  {
    serviceId: 'shop',
    toolId: 'getUser',
    description: 'One user',
    inputSchema: {
      type: 'object',
      required: ['path'],
      properties: {
        path: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
      },
    },
    outputSchema: { $ref: '#/$defs/User' },
    schemas: { User: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
  },
];

/** The host's side of a check over {@link SHOP}: what it was asked, and what it answered. */
function shopContext(): TypeCheckContext & { asked: ToolName[][] } {
  const asked: ToolName[][] = [];
  return {
    asked,
    async resolve(names) {
      asked.push([...names]);
      const tools = SHOP.filter((tool) =>
        names.some((name) => name.serviceId === tool.serviceId && name.toolId === tool.toolId),
      );
      const services = [...new Set(names.map((name) => name.serviceId))].filter((id) => id === 'shop');
      return { tools, services };
    },
  };
}

async function rejection(promise: Promise<unknown> | undefined): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('it resolved');
}

const check = (code: string, context: TypeCheckContext = shopContext()) =>
  env.checkTypes?.(code, context) ?? Promise.reject(new Error('no checkTypes'));

describe('typescript-ivm checkTypes', () => {
  it('answers nothing for code that type-checks against the tools it names and the sandbox globals', async () => {
    const context = shopContext();
    const code = [
      'const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 3 } });',
      'const name: string = user.name;',
      'console.log(name); setTimeout(() => {}, 10);',
      'const ref = new WeakRef({ name });',
      'cyrnel.output({ name, grouped: Object.groupBy([1, 2], (n) => String(n % 2)), kept: ref.deref() !== undefined });',
      'if (name === "") return;',
    ].join('\n');
    expect(await check(code, context)).toEqual([]);
    expect(context.asked).toEqual([[{ serviceId: 'shop', toolId: 'getUser' }]]);
  });

  it('reports a tool that does not exist at its name, with the line and column of the submitted code', async () => {
    const code = 'const a = 1;\n  await cyrnel.services.shop.tools.getUsers.invoke({});\n';
    expect(await check(code)).toEqual([
      { line: 2, column: 36, code: 2339, message: "Property 'getUsers' does not exist on type 'shop'." },
    ]);
    const [unknownService] = await check('await cyrnel.services.nope.tools.x.invoke({});');
    expect(unknownService).toMatchObject({ line: 1, column: 23, code: 2339 });
    expect(unknownService?.message).toMatch(/^Property 'nope' does not exist on type/);
  });

  it('reports a parameter of the wrong type where it is written', async () => {
    const code =
      "// look a user up\nawait cyrnel.services.shop.tools.getUser.invoke({ path: { id: 'three' } });";
    const diagnostics = await check(code);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ line: 2, column: 59, code: 2322 });
    expect(diagnostics[0]?.message).toContain("Type 'string' is not assignable to type 'number'.");
  });

  it('reports a syntax error (and only it) at its place, also one left open at the end', async () => {
    expect(await check('const a = 1;\nconst b: number = ;\nconst c: string = 1;')).toEqual([
      { line: 2, column: 19, code: 1109, message: 'Expression expected.' },
    ]);
    const open = await check('if (true) {\n  console.log(1);');
    expect(open).toEqual([{ line: 2, column: 18, code: 1005, message: "'}' expected." }]);
  });

  it('refuses the globals the sandbox removes (shared memory, FinalizationRegistry)', async () => {
    const diagnostics = await check(
      'const b = new SharedArrayBuffer(8);\nAtomics.wait;\nnew FinalizationRegistry(() => {});',
    );
    // 2583: "Cannot find name … Do you need to change your target library?"; 2304: "Cannot find name …".
    expect(diagnostics.map((d) => [d.line, d.code])).toEqual([
      [1, 2583],
      [2, 2583],
      [3, 2304],
    ]);
  });

  it('refuses code larger than typecheckMaxCodeBytes with payload_too_large', async () => {
    const error = await rejection(check(`// ${'x'.repeat(200_000)}`));
    expect(isCyrnelError(error) && error.reason).toBe('payload_too_large');
  });

  it('answers a check past its deadline with invalid_request', async () => {
    const { env: hurried } = await startEnvironment({ typecheckTimeoutMs: 1 });
    try {
      const error = await rejection(hurried.checkTypes?.('const a: number = 1;', shopContext()));
      expect(isCyrnelError(error) && error.reason).toBe('invalid_request');
      expect((error as Error).message).toMatch(/took longer than 1 ms/);
    } finally {
      await hurried.teardown();
    }
  });
});
