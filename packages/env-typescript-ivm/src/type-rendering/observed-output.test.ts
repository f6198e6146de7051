import type { ToolDocsInput } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { OBSERVED_NOTE } from './observed-output';
import { generateToolDocs } from './tool-docs';
import { renderToolSignature } from './tool-signature';
import { generateTypes } from './types-declaration';

const tool = (fields: Partial<ToolDocsInput> = {}): ToolDocsInput => ({
  serviceId: 'everything',
  toolId: 'echo',
  description: 'Echoes back the input string',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  outputSchema: {},
  ...fields,
});
const OBSERVED = {
  type: 'object',
  properties: { text: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['text'],
};

describe('observed result shapes in declarations', () => {
  it('declares the observed shape as the result, saying so in the tool comment', () => {
    const types = generateTypes([tool({ observedOutputSchema: OBSERVED })]);
    expect(types).toContain(`/** Echoes back the input string. ${OBSERVED_NOTE} */`);
    expect(types).toContain('Promise<{ text: string; tags?: string[] }>');
    const plain = generateTypes([tool()]);
    expect(plain).toContain('Promise<unknown>');
    expect(plain).not.toContain(OBSERVED_NOTE);
    expect(generateTypes([tool({ description: '', observedOutputSchema: OBSERVED })])).toContain(
      `/** ${OBSERVED_NOTE} */`,
    );
  });

  it('resolves the stubs of an observed result by name, like a declared one', () => {
    const profile = { type: 'object', properties: { name: { type: 'string' }, org: OBSERVED } };
    const deep = {
      type: 'object',
      properties: {
        page: { type: 'object', properties: { author: { type: 'object', properties: { profile } } } },
      },
      required: ['page'],
    };
    const sources = [tool({ observedOutputSchema: deep })];
    const name = 'everything.echo.result.page.author.profile';
    expect(generateTypes(sources, { maxBytes: 256 })).toContain(`profile?: CyrnelStub<"${name}">`);
    const named = generateTypes([], { types: [name], typeSources: sources });
    expect(named).toContain(`"${name}": { name?: string; org?: { text: string; tags?: string[] } };`);
  });

  it("gives the observed shape to a tool's signature and docs", () => {
    const observed = tool({ observedOutputSchema: OBSERVED });
    expect(renderToolSignature(observed).replace(/\s+/g, ' ')).toContain(
      'Promise<{ text: string; tags?: string[]; }>',
    );
    const docs = generateToolDocs(observed);
    expect(docs).toContain(`## Result\n\n${OBSERVED_NOTE}\n\n\`\`\`ts\ntype Result = {`);
  });
});
