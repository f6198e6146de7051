import type { ToolDefinition } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { createDefinitionBudget } from './definition-budget';
import { generateDefinition } from './generate-definition';

const tool = (inputSchema: Record<string, unknown>): ToolDefinition => ({
  id: 't',
  name: 't',
  description: 'd',
  inputSchema,
  outputSchema: {},
  adapterDomain: {},
});

describe('createDefinitionBudget', () => {
  it('does estimate at least the JSON size and refuse past the limit', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string', enum: ['x', 'y'] } },
      required: ['a'],
    };
    const json = JSON.stringify(tool(schema)).length;
    const fits = createDefinitionBudget(json * 2);
    fits.charge(tool(schema));
    expect(() => fits.charge(tool(schema))).toThrow('definition too large');
    expect(() => createDefinitionBudget(json - 1).charge(tool(schema))).toThrow('definition too large');
  });

  it('does count a shared $defs entry in every tool that carries it', () => {
    const shared = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`p${i}`, { type: 'string' }])),
    };
    const budget = createDefinitionBudget(JSON.stringify(shared).length * 3);
    budget.charge(tool({ $defs: { Shared: shared } }));
    budget.charge(tool({ $defs: { Shared: shared } }));
    expect(() => budget.charge(tool({ $defs: { Shared: shared } }))).toThrow('definition too large');
  });
});

describe('generateDefinition size limit', () => {
  it('does refuse a JSON document whose shared $refs would expand past the limit, quickly', () => {
    // A 560 KB document: one 300 KB schema returned by 2,000 operations is 600 MB of tool schemas.
    const big = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(100) }]),
      ),
    };
    const schema = { $ref: '#/components/schemas/Big' };
    const paths = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [
        `/r${i}`,
        { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } } } },
      ]),
    );
    const text = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'fan-out', version: '1' },
      paths,
      components: { schemas: { Big: big } },
    });
    expect(text.length).toBeLessThan(600_000);
    expect(() => generateDefinition(text)).toThrow(
      /^GET \/r\d+: definition too large: its tool schemas would exceed 128 MiB as JSON/,
    );
  });
});
