import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, useShopServer } from './helpers';

const KEY = 'mcp-check-key';

const GOOD = `const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
cyrnel.output({ name: user.body.name ?? null });`;

/** A wrong parameter type (line 1) and a tool that does not exist (line 2). */
const MISTYPED = `const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 'seven' } });
await cyrnel.services.shop.tools.deleteUser.invoke({});`;

describe('check_typescript and execute_typescript with typecheck over /mcp (the official MCP client)', () => {
  const shop = useShopServer({ apiKey: KEY });
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'cyrnel-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${shop.url()}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${KEY}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
  });

  const call = async (name: string, args: Record<string, unknown>): Promise<Json> =>
    client.callTool({ name, arguments: args });

  it('lists check_typescript as read-only, with the code as its input and the diagnostics as its output', async () => {
    const { tools } = await client.listTools();
    const check = tools.find((tool) => tool.name === 'check_typescript');
    expect(check?.annotations).toMatchObject({ readOnlyHint: true });
    expect(check?.inputSchema).toMatchObject({ type: 'object', required: ['code'] });
    expect(check?.outputSchema).toMatchObject({ type: 'object', required: ['diagnostics'] });
    const execute = tools.find((tool) => tool.name === 'execute_typescript');
    expect(execute?.inputSchema.properties?.typecheck).toMatchObject({ enum: ['off', 'reject'] });
  });

  it('answers the errors of code with their lines and columns, and none for code that type-checks', async () => {
    const checked = await call('check_typescript', { code: MISTYPED });
    expect(checked.isError).not.toBe(true);
    expect(
      checked.structuredContent.diagnostics.map((d: Json) => ({
        line: d.line,
        column: d.column,
        code: d.code,
      })),
    ).toEqual([
      { line: 1, column: 72, code: 2322 },
      { line: 2, column: 34, code: 2339 },
    ]);
    expect(checked.content[0].text).toContain(
      "2:34 TS2339 Property 'deleteUser' does not exist on type 'shop'.",
    );
    const syntax = await call('check_typescript', { code: 'const a = ;' });
    expect(syntax.structuredContent).toEqual({
      diagnostics: [{ line: 1, column: 11, code: 1109, message: 'Expression expected.' }],
    });
    const good = await call('check_typescript', { code: GOOD });
    expect(good.structuredContent).toEqual({ diagnostics: [] });
    expect(good.content[0].text).toBe('The code type-checks: no errors.');
  });

  it('refuses to run code with type errors under typecheck: "reject", answering the same diagnostics', async () => {
    const before = shop.upstream().requests.length;
    const refused = await call('execute_typescript', { code: MISTYPED, typecheck: 'reject' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.diagnostics).toEqual(
      (await call('check_typescript', { code: MISTYPED })).structuredContent.diagnostics,
    );
    expect(refused.content[0].text).toContain('The code was not run');
    expect(shop.upstream().requests.length).toBe(before);
    const ran = await call('execute_typescript', { code: GOOD, typecheck: 'reject' });
    expect(ran.structuredContent).toMatchObject({ state: 'idle', exitState: 'success' });
  });
});
