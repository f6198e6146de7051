import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { hintAnnotations, toolDefinitions } from './tools';

describe('hintAnnotations', () => {
  it('does carry every boolean hint over under its cyrnel name, true and false alike', () => {
    expect(
      hintAnnotations({
        title: 'Delete a file',
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      }),
    ).toEqual({ readOnly: false, destructive: true, idempotent: true, openWorld: false });
    expect(hintAnnotations({ readOnlyHint: true })).toEqual({ readOnly: true });
  });

  it("does leave absent and malformed hints unknown, without MCP's defaults", () => {
    expect(hintAnnotations(undefined)).toEqual({});
    expect(hintAnnotations({ title: 'Echo' })).toEqual({});
    expect(hintAnnotations('readOnly')).toEqual({});
    expect(hintAnnotations([true])).toEqual({});
    expect(
      hintAnnotations({ readOnlyHint: 'true', destructiveHint: 1, idempotentHint: null, readOnly: true }),
    ).toEqual({});
    // A hint only inherited (a `__proto__` key of JSON) was not sent as the tool's own.
    expect(hintAnnotations(JSON.parse('{"__proto__": {"readOnlyHint": true}}'))).toEqual({});
  });

  it('does write the annotations in one order whatever the order of the hints', () => {
    const a = hintAnnotations({ openWorldHint: true, readOnlyHint: true });
    const b = hintAnnotations({ readOnlyHint: true, openWorldHint: true });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(Object.keys(a)).toEqual(['readOnly', 'openWorld']);
  });
});

describe('toolDefinitions', () => {
  it('does give every tool its annotations, empty when the server sent no hints', () => {
    const tools = [
      { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'write', inputSchema: { type: 'object' } },
    ] as Tool[];
    expect(toolDefinitions(tools).map((tool) => [tool.id, tool.annotations])).toEqual([
      ['read', { readOnly: true }],
      ['write', {}],
    ]);
  });
});
