import type { ToolDetail } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { advertisedOutput, buildTool, mcpAnnotations } from './direct-tool-schemas';

const detail = (overrides: Partial<ToolDetail> = {}): ToolDetail => ({
  serviceId: 'shop',
  id: 'getUser',
  name: 'Get a user',
  description: 'One user by id',
  enabled: true,
  effectivelyEnabled: true,
  annotations: { readOnly: true, idempotent: true },
  labels: [],
  policy: null,
  effectivePolicy: 'allow',
  inputSchema: { type: 'object', properties: { id: { type: 'integer' } } },
  outputSchema: { type: 'object', properties: { name: { type: 'string' } } },
  observedOutputSchema: null,
  ...overrides,
});
const limits = { maxSchemaChars: 1000, maxDescriptionChars: 50 };

describe('advertisedOutput', () => {
  it('advertises no schema for one that accepts anything', () => {
    expect(advertisedOutput({})).toBeUndefined();
    expect(advertisedOutput({ description: 'anything' })).toBeUndefined();
  });

  it("says an OpenAPI tool's oneOf of response objects is an object; leaves other roots as they are", () => {
    const branches = [{ type: 'object', properties: { status: { const: 200 } } }];
    expect(advertisedOutput({ oneOf: branches })).toEqual({ type: 'object', oneOf: branches });
    expect(advertisedOutput({ oneOf: [{ type: 'object' }, { type: 'string' }] })).toEqual({
      oneOf: [{ type: 'object' }, { type: 'string' }],
    });
    expect(advertisedOutput({ type: 'array' })).toEqual({ type: 'array' });
  });
});

describe('buildTool', () => {
  it('lists a tool with its title, description, schemas and hints', () => {
    const built = buildTool('shop__getUser', detail(), limits);
    expect(built).toMatchObject({
      tool: {
        name: 'shop__getUser',
        title: 'Get a user',
        description: 'One user by id',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        annotations: { title: 'Get a user', readOnlyHint: true, idempotentHint: true },
      },
    });
    expect('tool' in built && built.tool.annotations).not.toHaveProperty('destructiveHint');
  });

  it('leaves out a tool whose input is no object or too large; drops an output schema too large', () => {
    expect(buildTool('a', detail({ inputSchema: { type: 'string' } }), limits)).toEqual({
      leftOut: 'input-schema-type',
    });
    const huge = { type: 'object', description: 'x'.repeat(2000) };
    expect(buildTool('a', detail({ inputSchema: huge }), limits)).toEqual({ leftOut: 'input-schema-size' });
    const built = buildTool('a', detail({ outputSchema: huge }), limits);
    expect('tool' in built && built.tool.outputSchema).toBeFalsy();
    expect('tool' in built && built.outputSchema).toBeUndefined();
  });

  it('cuts a long description with a marker', () => {
    const built = buildTool('a', detail({ description: 'd'.repeat(80) }), limits);
    expect('tool' in built && built.tool.description).toBe(`${'d'.repeat(50)}\n[… 30 more characters]`);
  });
});

describe('mcpAnnotations', () => {
  it("maps cyrnel's annotations to MCP's hints, leaving unknown ones out", () => {
    expect(mcpAnnotations({ destructive: true, openWorld: false }, 'Delete')).toEqual({
      title: 'Delete',
      destructiveHint: true,
      openWorldHint: false,
    });
  });
});
