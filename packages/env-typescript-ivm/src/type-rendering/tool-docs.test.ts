import { describe, expect, it } from 'vitest';
import { exampleValue } from './example-value';
import { generateToolDocs, toolPath } from './tool-docs';

describe('generateToolDocs', () => {
  it('renders description, parameter and result types and an example call', () => {
    const docs = generateToolDocs({
      serviceId: 'petstore',
      toolId: 'findPets',
      description: 'Find pets by status.',
      inputSchema: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['available', 'sold'], description: 'Status filter' },
          limit: { type: 'integer', default: 10 },
          tags: { type: 'array', items: { type: 'string', examples: ['cute'] } },
        },
        required: ['status', 'tags'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: { status: { type: 'integer' }, body: { type: 'array', items: { type: 'object' } } },
        required: ['status'],
        additionalProperties: false,
      },
    });
    expect(docs).toMatchInlineSnapshot(`
      "# petstore.findPets

      Find pets by status.

      ## Parameters

      \`\`\`ts
      type Parameters = {
        /** Status filter */
        status: "available" | "sold";
        limit?: number;
        tags: string[];
      };
      \`\`\`

      ## Result

      \`\`\`ts
      type Result = {
        status: number;
        body?: {
          [key: string]: unknown;
        }[];
      };
      \`\`\`

      ## Example

      \`\`\`ts
      try {
        const result = await cyrnel.services.petstore.tools.findPets.invoke({
          "status": "available",
          "tags": [
            "cute"
          ]
        });
        cyrnel.output({ result });
      } catch (err) {
        // err.status: 400 invalid parameters, 404 unknown, 409 disabled, 503 unavailable, 502 upstream failure
        cyrnel.output({ error: err.message, status: err.status });
      }
      \`\`\`
      "
    `);
  });

  it('never throws on hostile schemas', () => {
    const weird = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/A' } },
      $defs: { A: { $ref: '#/$defs/A' } },
    };
    const docs = generateToolDocs({
      serviceId: 's',
      toolId: 't',
      description: '',
      inputSchema: weird,
      outputSchema: {},
    });
    expect(docs).toContain('a?: unknown;');
    expect(docs).toContain('(no description)');
  });
});

describe('exampleValue', () => {
  it('prefers examples, then defaults, const and enums, then type placeholders', () => {
    expect(exampleValue({ type: 'string', examples: ['x'], default: 'y' })).toBe('x');
    expect(exampleValue({ type: 'string', default: 'y' })).toBe('y');
    expect(exampleValue({ const: 5 })).toBe(5);
    expect(exampleValue({ enum: ['a', 'b'] })).toBe('a');
    expect(exampleValue({ type: ['null', 'integer'], minimum: 3 })).toBe(3);
    expect(exampleValue({ anyOf: [{ type: 'null' }, { type: 'boolean' }] })).toBe(false);
    expect(exampleValue({ type: 'string', format: 'date-time' })).toBe('2024-01-01T00:00:00Z');
    expect(exampleValue(42)).toBeNull();
  });

  it('stops after a bounded number of schema nodes when required definitions repeat', () => {
    const $defs: Record<string, unknown> = {};
    for (let level = 0; level < 12; level++) {
      const next = level < 11 ? { $ref: `#/$defs/D${level + 1}` } : { type: 'integer' };
      $defs[`D${level}`] = {
        type: 'object',
        properties: { a: next, b: next, c: next },
        required: ['a', 'b', 'c'],
      };
    }
    const started = performance.now();
    const example = JSON.stringify(exampleValue({ $ref: '#/$defs/D0', $defs }));
    expect(performance.now() - started).toBeLessThan(1000);
    // 3^12 leaves unbounded; at most 10,000 nodes are visited.
    expect(example.match(/0/g)?.length ?? 0).toBeLessThan(10_000);
    expect(example).toContain('null');
  });
});

describe('toolPath', () => {
  it('uses bracket notation for ids that are not identifiers', () => {
    expect(toolPath('a', 'b')).toBe('cyrnel.services.a.tools.b');
    expect(toolPath('my-svc', 'b')).toBe('cyrnel.services["my-svc"].tools.b');
  });
});
