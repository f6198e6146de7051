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
    fits.charge('tool t', tool(schema));
    expect(() => fits.charge('tool t', tool(schema))).toThrow('definition too large');
    expect(() => createDefinitionBudget(json - 1).charge('tool t', tool(schema))).toThrow(
      'definition too large',
    );
  });

  it('does name the largest part when it refuses', () => {
    const budget = createDefinitionBudget(5000);
    budget.charge('schema Small', { type: 'string' });
    expect(() => budget.charge('tool big', tool({ description: 'x'.repeat(6000) }))).toThrow(
      /the largest part is tool big \(6 KiB\)/,
    );
  });
});

describe('generateDefinition size limit', () => {
  it('does keep a schema shared by thousands of operations once, by name', () => {
    // A 560 KB document: one 300 KB schema returned by 2,000 operations was 600 MB of tool schemas.
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
    const definition = generateDefinition(text);
    expect(definition.tools).toHaveLength(2000);
    expect(Object.keys(definition.schemas ?? {})).toEqual(['Big']);
    expect(JSON.stringify(definition).length).toBeLessThan(3 * text.length);
  });

  it('does refuse YAML aliases that expand past the limit, naming the largest part', () => {
    // 10 aliased 1 MB strings in one inline schema, used by 200 operations: 2 GB once expanded.
    const lines = [
      'openapi: 3.0.3',
      'info: {title: bomb, version: "1"}',
      'x-big: &big',
      '  type: object',
      '  properties:',
    ];
    for (let i = 0; i < 10; i++)
      lines.push(`    p${i}: {type: string, description: ${'x'.repeat(1_000_000)}}`);
    lines.push('paths:');
    for (let i = 0; i < 200; i++) {
      lines.push(`  /r${i}:`, '    get:', '      responses:', "        '200':", '          description: ok');
      lines.push('          content:', '            application/json:', '              schema: *big');
    }
    expect(() => generateDefinition(lines.join('\n'))).toThrow(
      /definition too large: .* the largest part is tool \w+ \(10 MiB\), which YAML aliases/,
    );
  });
});
