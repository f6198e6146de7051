// The type-check worker: a warm TypeScript language service checking programs against the
// declarations of the tools they name, off the host's main thread (a hostile program can make
// the checker work for seconds, or recurse as deep as it nests). Its own tsup entry
// (`dist/check-worker.js`), run with heap and stack limits under a deadline by the host's
// `createTypeChecker`; it answers like the render worker (`RenderReply`), so the same lane drives it.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { parentPort } from 'node:worker_threads';
import type { JSONSchema, ToolDocsInput, TypeDiagnostic } from '@cyrnel/sdk';
import type { RenderReply } from '../host/render-worker';
import { generateTypes } from '../type-rendering/types-declaration';
import { type CheckProgram, createCheckProgram } from './check-program';
import { sandboxLibFiles } from './sandbox-libs';

/** One check: the code, and the tools it names with the shared schemas they reach, by service. */
export interface CheckRequest {
  readonly id: number;
  readonly code: string;
  /** The named tools that can be called, without `schemas` (they travel once per service, below). */
  readonly tools: readonly ToolDocsInput[];
  /** By service id: the shared schemas its tools reach. */
  readonly schemas: Readonly<Record<string, Readonly<Record<string, JSONSchema>>>>;
  /** The named services that can be called, declared even without a tool. */
  readonly services: readonly string[];
}

/** The answer's text: the diagnostics, or why the code could not be checked. */
export type CheckAnswer = { readonly diagnostics: TypeDiagnostic[] } | { readonly unchecked: string };

const libDir = dirname(createRequire(import.meta.url).resolve('typescript'));
const libs = sandboxLibFiles(libDir);
let program: CheckProgram = createCheckProgram(libs);
// Parse and bind the library now: the first check is then as fast as the others. The host's
// deadline of a check starts once the worker says it is ready.
program.check('', generateTypes([]));
parentPort?.postMessage({ ready: true });

/** The last declarations rendered, by their input: an agent checks one program after another against the same tools. */
let rendered: { readonly key: string; readonly declarations: string } | undefined;

function declarationsOf(request: CheckRequest): string {
  const key = JSON.stringify([request.tools, request.schemas, request.services]);
  if (rendered?.key === key) return rendered.declarations;
  const tools = request.tools.map((tool) => {
    const schemas = request.schemas[tool.serviceId];
    return schemas ? { ...tool, schemas } : tool;
  });
  rendered = { key, declarations: generateTypes(tools, { services: request.services }) };
  return rendered.declarations;
}

function check(request: CheckRequest): CheckAnswer {
  const declarations = declarationsOf(request);
  try {
    return { diagnostics: program.check(request.code, declarations) };
  } catch (error) {
    // The parser or checker ran out of stack (code nested too deeply): the service may hold a
    // half-built program, so the next check starts from a fresh one.
    program = createCheckProgram(libs);
    if (error instanceof RangeError) return { unchecked: 'the code is nested too deeply to be type-checked' };
    throw error;
  }
}

parentPort?.on('message', (request: CheckRequest) => {
  let reply: RenderReply;
  try {
    reply = { id: request.id, ok: true, text: JSON.stringify(check(request)) };
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
