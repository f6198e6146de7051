import { describe, expect, it } from 'vitest';
import { manyToolsSpec, useServer } from './helpers';

describe('the type declarations of the catalog', () => {
  const { api } = useServer();

  it('renders the type declarations once per catalog revision and follows a change', async () => {
    const installed = await api('POST', '/services', {
      id: 'things',
      adapter: 'openapi',
      definition: JSON.stringify(manyToolsSpec(2000)),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    const first = await api('GET', '/environment/types');
    expect(first.status).toBe(200);
    expect(first.text).toContain('listThings1999');
    const again = await api('GET', '/environment/types');
    expect(again.text).toBe(first.text);
    const disabled = await api('POST', '/tools/things/listThings1999/enabled', { enabled: false });
    expect(disabled.status).toBe(200);
    const after = await api('GET', '/environment/types');
    expect(after.text).not.toContain('listThings1999');
    expect(after.text).toContain('listThings1998');
    const discovered = await api('POST', '/processes', {
      code: `cyrnel.output({ ids: (await cyrnel.discover.tools({ query: 'listThings1999' })).map((t) => t.toolId) });`,
      wait: true,
    });
    expect(discovered.body.output).toEqual({ ids: [] });
  });
});

/** A shop whose customer reaches a wide address and a wider order history: more than a small budget. */
function shopSpec() {
  const wide = (prefix: string, count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, { type: 'string' }]));
  return {
    openapi: '3.0.3',
    info: { title: 'Shop', version: '1' },
    servers: [{ url: 'https://shop.invalid' }],
    paths: {
      '/customers/{id}': {
        get: {
          operationId: 'getCustomer',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Customer' } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Customer: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            address: { $ref: '#/components/schemas/Address' },
            orders: { type: 'array', items: { $ref: '#/components/schemas/Order' } },
          },
        },
        Address: { type: 'object', properties: wide('line', 40) },
        Order: {
          type: 'object',
          properties: { ...wide('field', 60), customer: { $ref: '#/components/schemas/Customer' } },
        },
      },
    },
  };
}

describe('the type declarations of a selection within a budget', () => {
  const { api } = useServer();

  it('writes stubs beyond maxBytes, declares them by name (also from the sandbox), and refuses bad budgets and names', async () => {
    const installed = await api('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec()),
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
    const whole = await api('GET', '/environment/types?tools=shop.getCustomer&maxBytes=1000000');
    expect(whole.text).not.toContain('CyrnelStub<');
    const small = await api('GET', '/environment/types?tools=shop.getCustomer&maxBytes=512');
    expect(small.status).toBe(200);
    expect(small.text).toContain('type Customer = {');
    expect(small.text).toMatch(/CyrnelStub<"shop\.(Address|Order)">/);
    expect(small.text.length).toBeLessThan(whole.text.length);

    const asked = await api('GET', '/environment/types?types=shop.Order,shop.nothing');
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('"shop.Order": CyrnelSchemas.shop.Order;');
    expect(asked.text).toContain('field59?: string;');
    expect(asked.text).toContain(
      "// Unknown types (neither a shared schema nor a member of a tool's parameters or result): shop.nothing",
    );
    expect(asked.text).not.toContain('declare const cyrnel');
    const sandbox = await api('POST', '/processes', {
      code: "cyrnel.output({ text: await cyrnel.discover.types({ types: ['shop.Order', 'shop.nothing'] }) });",
      wait: true,
    });
    expect(sandbox.body.output).toEqual({ text: asked.text });

    for (const query of ['maxBytes=12', 'maxBytes=lots', 'types=Order', 'types=ghost.Order']) {
      const refused = await api('GET', `/environment/types?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.reason, query).toBe('invalid_request');
    }
  });
});
