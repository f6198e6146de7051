import {
  cyrnelError,
  type FoundToolCalls,
  type GenerateTypesOptions,
  type JSONSchema,
  type ToolDocsInput,
  withSharedSchemas,
} from '@cyrnel/sdk';
import { createRenderLane } from './render-lane';
import type { RenderRequest, ToolCallsAnswer } from './render-worker';

/** Options of {@link createRenderer}. */
export interface RendererOptions {
  /** Path of the built `render-worker.js` (see `resolveDistFile`). */
  readonly workerPath: string;
  /** Deadline of one rendering; past it the rendering fails and its worker is replaced. */
  readonly timeoutMs: number;
  /** A worker without work this long exits (started again on demand). Default 60000. */
  readonly idleTimeoutMs?: number;
  /** Tools per message when a catalog is posted. Default 100. */
  readonly partSize?: number;
}

/**
 * Renders type declarations, tool docs and signatures in worker threads: a catalog's
 * declarations take seconds for tens of thousands of tools, and a schema whose definitions refer
 * to each other can cost a rendering up to its size budget; neither may stall the host. Two
 * workers, so a catalog being rendered never delays a tool's docs or a sandbox's `discover.tool`;
 * a third, started on demand, finds the tool calls in programs' text (its parser recurses as deep
 * as the code nests: a stack it exhausts is a worker's, never the host's main thread).
 */
export interface Renderer {
  /** `generateTypes` of the tools, within the options' budget, with the types they ask for. */
  types(tools: readonly ToolDocsInput[], options?: GenerateTypesOptions): Promise<string>;
  /** `generateToolDocs` of one tool. */
  toolDocs(tool: ToolDocsInput): Promise<string>;
  /** `renderToolSignature` of one tool. */
  signature(tool: ToolDocsInput): Promise<string>;
  /** `findToolCalls` of a program; rejects with 400 `invalid_request` when it does not parse. */
  toolCalls(code: string): Promise<FoundToolCalls>;
  /** Terminate the workers; pending and later renderings reject. */
  close(): void;
}

/** The fields a rendering reads: nothing else of a tool is cloned into the worker (its service's shared schemas travel once per catalog). */
function docsInput(tool: ToolDocsInput): ToolDocsInput {
  const { serviceId, toolId, description, inputSchema, outputSchema } = tool;
  return { serviceId, toolId, description, inputSchema, outputSchema };
}

/** One tool, self-contained: only the shared schemas it reaches are cloned, as its `$defs`. */
function singleInput(tool: ToolDocsInput): ToolDocsInput {
  return {
    ...docsInput(tool),
    inputSchema: withSharedSchemas(tool.inputSchema, tool.schemas),
    outputSchema: withSharedSchemas(tool.outputSchema, tool.schemas),
  };
}

/**
 * Create a renderer; its workers start on demand.
 *
 * @example
 * ```ts
 * const renderer = createRenderer({ workerPath: resolveDistFile('render-worker.js'), timeoutMs: 60_000 });
 * const declarations = await renderer.types(tools);
 * renderer.close();
 * ```
 */
export function createRenderer(options: RendererOptions): Renderer {
  const lane = {
    workerPath: options.workerPath,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
  };
  const partSize = Math.max(1, options.partSize ?? 100);
  const catalog = createRenderLane(lane);
  const single = createRenderLane(lane);
  const analysis = createRenderLane(lane);
  const name = (tool: ToolDocsInput) => `${tool.serviceId}.${tool.toolId}`;

  return {
    types(tools, options = {}) {
      return catalog.run('the type declarations', (id) => {
        const requests: RenderRequest[] = [];
        const sent = new Set<string>();
        // Each service's shared schemas go with the first part that has one of its tools.
        const schemasOf = (slice: readonly ToolDocsInput[]) => {
          const schemas: Record<string, Readonly<Record<string, JSONSchema>>> = {};
          for (const tool of slice) {
            if (!tool.schemas || sent.has(tool.serviceId)) continue;
            sent.add(tool.serviceId);
            schemas[tool.serviceId] = tool.schemas;
          }
          return schemas;
        };
        for (let start = 0; start === 0 || start < tools.length; start += partSize) {
          const slice = tools.slice(start, start + partSize);
          const schemas = schemasOf(slice);
          const last = start + partSize >= tools.length;
          const part = slice.map(docsInput);
          if (!last) {
            requests.push({ id, kind: 'types', tools: part, schemas, last });
            continue;
          }
          // The budget, the names asked for and the tools they are looked up in go with the last part.
          const sources = options.typeSources ?? [];
          Object.assign(schemas, schemasOf(sources));
          const { maxBytes, types } = options;
          requests.push({
            id,
            kind: 'types',
            tools: part,
            schemas,
            last,
            options: { maxBytes, types, typeSources: sources.map(docsInput) },
          });
        }
        return requests;
      });
    },
    toolDocs(tool) {
      return single.run(`the docs of ${name(tool)}`, (id) => [
        { id, kind: 'tool-docs', tool: singleInput(tool) },
      ]);
    },
    signature(tool) {
      return single.run(`the signature of ${name(tool)}`, (id) => [
        { id, kind: 'signature', tool: singleInput(tool) },
      ]);
    },
    async toolCalls(code) {
      const text = await analysis.run('the tool calls of the code', (id) => [
        { id, kind: 'tool-calls', code },
      ]);
      const answer = JSON.parse(text) as ToolCallsAnswer;
      if ('invalid' in answer) throw cyrnelError('invalid_request', answer.invalid);
      return answer.found;
    },
    close() {
      catalog.close();
      single.close();
      analysis.close();
    },
  };
}
