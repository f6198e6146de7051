import { type ToolDocsInput, withSharedSchemas } from '@cyrnel/sdk';
import { exampleValue } from './example-value';
import { OBSERVED_NOTE } from './observed-output';
import { renderSchemaType } from './schema-type';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `cyrnel.services.a.tools.b` (bracket notation when an id is not an identifier). */
export function toolPath(serviceId: string, toolId: string): string {
  const part = (id: string) => (IDENTIFIER.test(id) ? `.${id}` : `[${JSON.stringify(id)}]`);
  return `cyrnel.services${part(serviceId)}.tools${part(toolId)}`;
}

/** Markdown for one tool: description, parameter and result types, an example call. Never throws. */
export function generateToolDocs(input: ToolDocsInput): string {
  const path = toolPath(input.serviceId, input.toolId);
  // One tool's page inlines the shared schemas it reaches.
  const inputSchema = withSharedSchemas(input.inputSchema, input.schemas);
  const params = renderSchemaType(inputSchema, { comments: true });
  const observed = input.observedOutputSchema;
  const result = renderSchemaType(observed ?? withSharedSchemas(input.outputSchema, input.schemas), {
    comments: true,
  });
  let example: string;
  try {
    example = JSON.stringify(exampleValue(inputSchema) ?? {}, null, 2) ?? '{}';
  } catch {
    example = '{}';
  }
  return [
    `# ${input.serviceId}.${input.toolId}`,
    '',
    input.description.trim() || '(no description)',
    '',
    '## Parameters',
    '',
    '```ts',
    `type Parameters = ${params};`,
    '```',
    '',
    '## Result',
    '',
    ...(observed ? [OBSERVED_NOTE, ''] : []),
    '```ts',
    `type Result = ${result};`,
    '```',
    '',
    '## Example',
    '',
    '```ts',
    'try {',
    `  const result = await ${path}.invoke(${example.replace(/\n/g, '\n  ')});`,
    '  cyrnel.output({ result });',
    '} catch (err) {',
    '  // err.status: 400 invalid parameters, 404 unknown, 409 disabled, 503 unavailable, 502 upstream failure',
    '  cyrnel.output({ error: err.message, status: err.status });',
    '}',
    '```',
    '',
  ].join('\n');
}
