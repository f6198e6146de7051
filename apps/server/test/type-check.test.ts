import { CyrnelHttpError, createClient } from '@cyrnel/client';
import { describe, expect, it } from 'vitest';
import { useShopServer } from './helpers';

const KEY = 'type-check-key';

/** Calls both tools of the shop as their declarations say. */
const GOOD = `const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
const orders = await cyrnel.services.shop.tools.listOrders.invoke({ query: { userId: 7 } });
cyrnel.output({ name: user.body.name ?? null, orders: orders.body.length });`;

/** A tool that does not exist (line 2), and a parameter of the wrong type (line 3). */
const MISTYPED = `const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
const none = await cyrnel.services.shop.tools.getUserz.invoke({});
await cyrnel.services.shop.tools.listOrders.invoke({ query: { userId: 'seven' } });
cyrnel.output({ name: user.body.name ?? null });`;

describe('type-check before run (POST /processes check and typecheck)', () => {
  const shop = useShopServer({ apiKey: KEY });
  const { api } = shop;

  const processCount = async () => (await api('GET', '/processes?limit=100')).body.items.length as number;

  it('answers no diagnostics for code that type-checks, and runs nothing', async () => {
    const before = await processCount();
    const checked = await api('POST', '/processes', { code: GOOD, check: true });
    expect(checked).toMatchObject({ status: 201, body: { diagnostics: [] } });
    expect(await processCount()).toBe(before);
  });

  it('answers an unknown tool and a wrong parameter type with their lines and columns', async () => {
    const checked = await api('POST', '/processes', { code: MISTYPED, check: true });
    expect(checked.status).toBe(201);
    const diagnostics = checked.body.diagnostics as {
      line: number;
      column: number;
      code: number;
      message: string;
    }[];
    expect(diagnostics.map(({ line, column, code }) => ({ line, column, code }))).toEqual([
      { line: 2, column: 47, code: 2551 },
      { line: 3, column: 63, code: 2322 },
    ]);
    expect(diagnostics[0]?.message).toBe(
      "Property 'getUserz' does not exist on type 'shop'. Did you mean 'getUser'?",
    );
    expect(diagnostics[1]?.message).toContain("Type 'string' is not assignable to type 'number'.");
  });

  it('answers a syntax error at its place', async () => {
    const checked = await api('POST', '/processes', {
      code: 'const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });\ncyrnel.output({ name: user.body.name ?? null ;',
      check: true,
    });
    // At the `;` where the object literal needed a `,` or its `}`, and the call its `)`.
    expect(checked.body).toEqual({
      diagnostics: [
        { line: 2, column: 46, code: 1005, message: "',' expected." },
        { line: 2, column: 47, code: 1005, message: "')' expected." },
      ],
    });
  });

  it("refuses code with type errors under typecheck: 'reject' (400 type_error, diagnostics in details), storing nothing", async () => {
    const before = await processCount();
    const upstreamCalls = shop.upstream().requests.length;
    const refused = await api('POST', '/processes', { code: MISTYPED, typecheck: 'reject', wait: true });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_request', reason: 'type_error' });
    expect(refused.body.error).toMatch(/^the code has type errors, so it was not run: line 2, column 47: /);
    expect(refused.body.details).toHaveLength(2);
    expect(refused.body.details[0]).toMatchObject({ line: 2, column: 47, code: 2551 });
    expect(await processCount()).toBe(before);
    expect(shop.upstream().requests.length).toBe(upstreamCalls);
  });

  it("runs code that type-checks under typecheck: 'reject', and code with type errors without it (the default)", async () => {
    const checked = await api('POST', '/processes', { code: GOOD, typecheck: 'reject', wait: true });
    expect(checked.body).toMatchObject({ exitState: 'success', output: { orders: expect.any(Number) } });
    const unchecked = await api('POST', '/processes', {
      code: 'const n: number = "seven" as unknown as number; cyrnel.output({ n });\nconst s: string = 1;',
      wait: true,
    });
    expect(unchecked.body).toMatchObject({ exitState: 'success', output: { n: 'seven' } });
    const off = await api('POST', '/processes', {
      code: 'const s: string = 1;',
      typecheck: 'off',
      wait: true,
    });
    expect(off.body).toMatchObject({ exitState: 'success' });
  });

  it('refuses check combined with running options, and an unknown typecheck mode', async () => {
    for (const extra of [{ wait: true }, { plan: true }, { autorun: false }, { typecheck: 'reject' }]) {
      const refused = await api('POST', '/processes', { code: GOOD, check: true, ...extra });
      expect({ extra, status: refused.status, reason: refused.body.reason }).toEqual({
        extra,
        status: 400,
        reason: 'invalid_request',
      });
    }
    const mode = await api('POST', '/processes', { code: GOOD, typecheck: 'strict' });
    expect(mode).toMatchObject({ status: 400, body: { reason: 'invalid_request' } });
    expect(mode.body.error).toContain('typecheck must be one of "off", "reject"');
  });

  it('refuses a plan of code with type errors under typecheck: reject', async () => {
    const refused = await api('POST', '/processes', { code: MISTYPED, plan: true, typecheck: 'reject' });
    expect(refused).toMatchObject({ status: 400, body: { reason: 'type_error' } });
  });

  it('is reached through @cyrnel/client: processes.check, and run with typecheck: reject throwing type_error', async () => {
    const client = createClient({ baseUrl: shop.url(), apiKey: KEY });
    const { diagnostics } = await client.processes.check(MISTYPED);
    expect(diagnostics.map((d) => d.line)).toEqual([2, 3]);
    const error = await client.processes
      .run(MISTYPED, { typecheck: 'reject' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CyrnelHttpError);
    expect(error).toMatchObject({ status: 400, reason: 'type_error' });
    expect((error as CyrnelHttpError).details).toEqual(diagnostics);
    const result = await client.processes.run(GOOD, { typecheck: 'reject' });
    expect(result.exitState).toBe('success');
  });
});
