import type { TypeDiagnostic } from '@cyrnel/sdk';
import ts from 'typescript';
import { type LibFile, WEAK_REF_DECLARATION } from './sandbox-libs';

/** At most this many diagnostics are answered, the first in the text: enough to fix the code. */
export const MAX_DIAGNOSTICS = 100;

/** A diagnostic's message is cut here (a type printed in full can run to megabytes). */
const MAX_MESSAGE_LENGTH = 2_000;

/**
 * The compiler options of the check: `strict`, target ES2022, as the admin UI's playground editor
 * checks the same code; no default library (the sandbox's own list is given as root files) and no
 * `@types`.
 */
export const CHECK_COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  noLib: true,
  noEmit: true,
  types: [],
  noResolve: true,
  isolatedModules: false,
  allowJs: false,
};

/**
 * The program is the body of an async function, as the sandbox runs it (`transpile.ts`): top-level
 * `await` and `return` work, and its declarations are local. One line above the code, so a
 * diagnostic's line is its line in the file minus one; columns are unchanged.
 */
const HEADER = 'async function __cyrnelProgram() {\n';
const FOOTER = '\n}\n';

const MAIN = '/main.ts';
const DECLARATIONS = '/cyrnel.d.ts';

/** A warm TypeScript language service checking programs against a sandbox's declarations. */
export interface CheckProgram {
  /**
   * The errors of `code` against `declarations` (the `cyrnel` global and the sandbox's other
   * globals): syntax errors when it has any, else its type errors; in the order of the text, at
   * most {@link MAX_DIAGNOSTICS}. Lines and columns are 1-based, in `code`.
   */
  check(code: string, declarations: string): TypeDiagnostic[];
}

/**
 * Create a checker over the sandbox's library files. The language service keeps the parsed and
 * bound library between checks (only the code, and the declarations when they change, are parsed
 * again), which is what makes a check take milliseconds rather than the second a cold `tsc` takes.
 *
 * @example
 * ```ts
 * const program = createCheckProgram(sandboxLibFiles(libDir));
 * program.check('const n: number = "a";', generateTypes([])); // [{ line: 1, column: 7, code: 2322, … }]
 * ```
 */
export function createCheckProgram(libs: readonly LibFile[]): CheckProgram {
  const snapshots = new Map<string, ts.IScriptSnapshot>();
  const versions = new Map<string, number>();
  const texts = new Map<string, string>();
  const set = (file: string, text: string) => {
    if (texts.get(file) === text) return;
    texts.set(file, text);
    snapshots.set(file, ts.ScriptSnapshot.fromString(text));
    versions.set(file, (versions.get(file) ?? 0) + 1);
  };
  for (const lib of libs) set(`/${lib.name}`, lib.text);
  set('/weak-ref.d.ts', WEAK_REF_DECLARATION);
  set(DECLARATIONS, '');
  set(MAIN, `${HEADER}${FOOTER}`);
  const files = [...texts.keys()];
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => files,
    getScriptVersion: (file) => String(versions.get(file) ?? 0),
    getScriptSnapshot: (file) => snapshots.get(file),
    getCurrentDirectory: () => '/',
    getCompilationSettings: () => CHECK_COMPILER_OPTIONS,
    getDefaultLibFileName: () => '/lib.d.ts',
    fileExists: (file) => texts.has(file),
    readFile: (file) => texts.get(file),
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());

  return {
    check(code, declarations) {
      set(DECLARATIONS, declarations);
      set(MAIN, `${HEADER}${code}${FOOTER}`);
      const syntactic = service.getSyntacticDiagnostics(MAIN);
      const found = syntactic.length > 0 ? syntactic : service.getSemanticDiagnostics(MAIN);
      const program = service.getProgram();
      const file = program?.getSourceFile(MAIN);
      if (!file) return [];
      return found
        .filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error)
        .sort((a, b) => (a.start ?? 0) - (b.start ?? 0))
        .slice(0, MAX_DIAGNOSTICS)
        .map((diagnostic) => toDiagnostic(diagnostic, file, code));
    },
  };
}

/** A diagnostic in the submitted code's terms: the header's line taken off, clamped to the code. */
function toDiagnostic(diagnostic: ts.Diagnostic, file: ts.SourceFile, code: string): TypeDiagnostic {
  const at = file.getLineAndCharacterOfPosition(diagnostic.start ?? HEADER.length);
  const lines = code.split('\n');
  let line = at.line;
  let column = at.character + 1;
  if (line < 1) {
    line = 1;
    column = 1;
  } else if (line > lines.length) {
    // Past the code (a brace or bracket the code left open, reported at the wrapper's end).
    line = lines.length;
    column = (lines[lines.length - 1] ?? '').length + 1;
  }
  let message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  if (message.length > MAX_MESSAGE_LENGTH) message = `${message.slice(0, MAX_MESSAGE_LENGTH)}…`;
  return { line, column, message, code: diagnostic.code };
}
