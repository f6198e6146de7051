import { lazyPackage } from './lazy-package';

/** sucrase, loaded by the first transpilation (a sandbox process loads it at start: see the runner). */
export const sucrase = lazyPackage<typeof import('sucrase')>('sucrase');

/** Result of {@link transpile}: runnable JavaScript or the transpiler's message. */
export type TranspileResult =
  | { readonly ok: true; readonly js: string }
  | { readonly ok: false; readonly message: string };

/**
 * Line offset of user code inside the wrapper; the script origin compensates so stack traces and
 * errors name the user's own line numbers.
 */
export const WRAPPER_LINE_OFFSET = 1;

/**
 * Strip TypeScript (no type check), keeping every line where it was; throws sucrase's error
 * (with its `loc`) when the code does not parse.
 */
export function stripTypes(code: string): string {
  return sucrase().transform(code, { transforms: ['typescript'], disableESTransforms: true }).code;
}

/** The script a sandbox runs: the program inside the async function `__cyrnelMain` calls. */
export function wrapProgram(js: string): string {
  return `__cyrnelMain(async function () { 'use strict';\n${js}\n});`;
}

/**
 * Strip TypeScript (no type check) and wrap the program in an async function so top-level
 * `await` works. sucrase won the measured comparison (README) and keeps line numbers stable.
 * `__cyrnelMain` (installed by the sandbox bootstrap) runs the function and marks the program
 * finished before the host hears that it ended.
 */
export function transpile(code: string): TranspileResult {
  let js: string;
  try {
    js = stripTypes(code);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `SyntaxError: ${message}` };
  }
  return { ok: true, js: wrapProgram(js) };
}
