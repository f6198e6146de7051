import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import ts from 'typescript';

const LIB_DIR = dirname(createRequire(import.meta.url).resolve('typescript'));
const MAIN = '/main.ts';
const DECLARATIONS = '/cyrnel.d.ts';

/**
 * The floor of a type check: TypeScript's language service alone, warm, in this process — the
 * same declarations, the same program wrapped in an async function, `strict`, the ES2024
 * library — with no HTTP, no worker, no tool lookup and no rendering of declarations.
 */
export interface TypecheckFloor {
  /** The number of errors of `code` (syntax errors when it has any, else type errors). */
  check(code: string): number;
}

/** A warm language service over `declarations`. */
export function createTypecheckFloor(declarations: string): TypecheckFloor {
  const texts = new Map<string, string>([[DECLARATIONS, declarations]]);
  const versions = new Map<string, number>();
  const service = ts.createLanguageService({
    getScriptFileNames: () => [DECLARATIONS, MAIN],
    getScriptVersion: (file) => String(versions.get(file) ?? 0),
    getScriptSnapshot: (file) => {
      const text = texts.get(file) ?? (file.startsWith(LIB_DIR) ? readFileSync(file, 'utf8') : undefined);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => '/',
    getCompilationSettings: () => ({
      strict: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2024.d.ts'],
      noEmit: true,
      types: [],
    }),
    getDefaultLibFileName: () => join(LIB_DIR, 'lib.es2024.d.ts'),
    fileExists: (file) => texts.has(file) || (file.startsWith(LIB_DIR) && ts.sys.fileExists(file)),
    readFile: (file) => texts.get(file) ?? (file.startsWith(LIB_DIR) ? ts.sys.readFile(file) : undefined),
  });
  return {
    check(code) {
      texts.set(MAIN, `async function main() {\n${code}\n}\n`);
      versions.set(MAIN, (versions.get(MAIN) ?? 0) + 1);
      const syntactic = service.getSyntacticDiagnostics(MAIN);
      return syntactic.length > 0 ? syntactic.length : service.getSemanticDiagnostics(MAIN).length;
    },
  };
}
