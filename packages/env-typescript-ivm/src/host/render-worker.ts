// The render worker: type declarations, tool docs and signatures, rendered off the host's main
// thread, where a large catalog would stall every request; and the tool calls found in a
// program's text, whose parsing recurses as deep as the code nests. Its own tsup entry
// (`dist/render-worker.js`), always run from `dist/` — also in this package's tests, which build
// first — so it may import the renderers; none of them loads isolated-vm.
import { parentPort } from 'node:worker_threads';
import {
  type FoundToolCalls,
  type GenerateTypesOptions,
  isCyrnelError,
  type JSONSchema,
  type ToolDocsInput,
} from '@cyrnel/sdk';
import { findToolCalls } from '../tool-calls/find-tool-calls';
import { generateToolDocs } from '../type-rendering/tool-docs';
import { renderToolSignature } from '../type-rendering/tool-signature';
import { generateTypes } from '../type-rendering/types-declaration';

/**
 * A request from the main thread. A catalog arrives in `types` parts (posted one at a time, so
 * no single structured clone of thousands of schemas blocks the host); `last` renders it.
 */
export type RenderRequest =
  | {
      readonly id: number;
      readonly kind: 'types';
      readonly tools: readonly ToolDocsInput[];
      /** Shared schemas by service id, each sent once per catalog, with the first part of its tools. */
      readonly schemas?: Readonly<Record<string, Readonly<Record<string, JSONSchema>>>>;
      readonly last: boolean;
      /** With the last part: the budget, the types asked for and the tools they are looked up in. */
      readonly options?: GenerateTypesOptions;
    }
  | { readonly id: number; readonly kind: 'tool-docs'; readonly tool: ToolDocsInput }
  | { readonly id: number; readonly kind: 'signature'; readonly tool: ToolDocsInput }
  /** Answered with a {@link ToolCallsAnswer} as JSON text. */
  | { readonly id: number; readonly kind: 'tool-calls'; readonly code: string };

/** What `findToolCalls` found, or why the code was refused (its `invalid_request` message). */
export type ToolCallsAnswer = { readonly found: FoundToolCalls } | { readonly invalid: string };

/** The answer to the last part of one {@link RenderRequest}. */
export type RenderReply =
  | { readonly id: number; readonly ok: true; readonly text: string }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** Parts of catalogs not rendered yet, by request id, with their services' shared schemas. */
const parts = new Map<
  number,
  { tools: ToolDocsInput[]; schemas: Map<string, Readonly<Record<string, JSONSchema>>> }
>();

function render(request: RenderRequest): string | undefined {
  switch (request.kind) {
    case 'types': {
      const catalog = parts.get(request.id) ?? { tools: [] as ToolDocsInput[], schemas: new Map() };
      for (const [serviceId, schemas] of Object.entries(request.schemas ?? {}))
        catalog.schemas.set(serviceId, schemas);
      for (const tool of request.tools) {
        // One object per service, as the host gave it: rendered once, by name.
        const schemas = catalog.schemas.get(tool.serviceId);
        catalog.tools.push(schemas ? { ...tool, schemas } : tool);
      }
      if (!request.last) {
        parts.set(request.id, catalog);
        return undefined;
      }
      parts.delete(request.id);
      const withSchemas = (tool: ToolDocsInput) => {
        const schemas = catalog.schemas.get(tool.serviceId);
        return schemas ? { ...tool, schemas } : tool;
      };
      const options = request.options ?? {};
      return generateTypes(catalog.tools, {
        ...options,
        ...(options.typeSources ? { typeSources: options.typeSources.map(withSchemas) } : {}),
      });
    }
    case 'tool-docs':
      return generateToolDocs(request.tool);
    case 'signature':
      return renderToolSignature(request.tool);
    case 'tool-calls':
      return JSON.stringify(toolCalls(request.code));
  }
}

function toolCalls(code: string): ToolCallsAnswer {
  try {
    return { found: findToolCalls(code) };
  } catch (error) {
    if (isCyrnelError(error) && error.reason === 'invalid_request') return { invalid: error.message };
    throw error;
  }
}

parentPort?.on('message', (request: RenderRequest) => {
  let reply: RenderReply | undefined;
  try {
    const text = render(request);
    if (text !== undefined) reply = { id: request.id, ok: true, text };
  } catch (error) {
    // Rendering never throws on a schema; what is left is running out of room (a string too long).
    parts.delete(request.id);
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  if (reply) parentPort?.postMessage(reply);
});
