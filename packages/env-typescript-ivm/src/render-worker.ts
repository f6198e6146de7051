// The render worker: type declarations, tool docs and signatures, rendered off the host's main
// thread (issue 13). Its own tsup entry (`dist/render-worker.js`), always run from `dist/` — also
// in this package's tests, which build first — so it may import the renderers; none of them loads
// isolated-vm.
import { parentPort } from 'node:worker_threads';
import type { ToolDocsInput } from '@cyrnel/sdk';
import { generateToolDocs } from './tool-docs';
import { renderToolSignature } from './tool-signature';
import { generateTypes } from './types-declaration';

/**
 * A request from the main thread. A catalog arrives in `types` parts (posted one at a time, so
 * no single structured clone of thousands of schemas blocks the host); `last` renders it.
 */
export type RenderRequest =
  | {
      readonly id: number;
      readonly kind: 'types';
      readonly tools: readonly ToolDocsInput[];
      readonly last: boolean;
    }
  | { readonly id: number; readonly kind: 'tool-docs'; readonly tool: ToolDocsInput }
  | { readonly id: number; readonly kind: 'signature'; readonly tool: ToolDocsInput };

/** The answer to the last part of one {@link RenderRequest}. */
export type RenderReply =
  | { readonly id: number; readonly ok: true; readonly text: string }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** Parts of catalogs not rendered yet, by request id. */
const parts = new Map<number, ToolDocsInput[]>();

function render(request: RenderRequest): string | undefined {
  switch (request.kind) {
    case 'types': {
      const tools = parts.get(request.id) ?? [];
      for (const tool of request.tools) tools.push(tool);
      if (!request.last) {
        parts.set(request.id, tools);
        return undefined;
      }
      parts.delete(request.id);
      return generateTypes(tools);
    }
    case 'tool-docs':
      return generateToolDocs(request.tool);
    case 'signature':
      return renderToolSignature(request.tool);
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
