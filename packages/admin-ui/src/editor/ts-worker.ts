// The playground's TypeScript language service, in a worker: completions and diagnostics of the
// code against the declarations of the enabled tools (`/environment/types`). Loaded lazily with
// the editor; the standard library (ES2022) comes bundled.
import libs from 'virtual:ts-libs';
import ts from 'typescript';

/** The sandbox's globals besides `cyrnel` (the declarations bring that one). */
const PRELUDE = `declare const console: {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
};
declare function setTimeout(callback: (...args: unknown[]) => void, ms?: number): number;
declare function clearTimeout(id: number | undefined): void;
`;
/** The code is the body of an async function: as a module, top-level await type-checks. */
const HEADER = 'export {};\n';
const MAIN = '/main.ts';
const TYPES = '/cyrnel.d.ts';

const texts = new Map<string, string>(Object.entries(libs).map(([name, text]) => [`/${name}`, text]));
const versions = new Map<string, number>();
const set = (file: string, text: string) => {
  if (texts.get(file) === text) return;
  texts.set(file, text);
  versions.set(file, (versions.get(file) ?? 0) + 1);
};
set(TYPES, PRELUDE);
set(MAIN, HEADER);

const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts'],
  strict: true,
  noEmit: true,
  types: [],
};
const service = ts.createLanguageService({
  getScriptFileNames: () => [TYPES, MAIN],
  getScriptVersion: (file) => String(versions.get(file) ?? 0),
  getScriptSnapshot: (file) => {
    const text = texts.get(file);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  },
  getCurrentDirectory: () => '/',
  getCompilationSettings: () => options,
  getDefaultLibFileName: () => '/lib.es2022.d.ts',
  fileExists: (file) => texts.has(file),
  readFile: (file) => texts.get(file),
});

/** What the editor asks. */
export type WorkerRequest =
  | { id: number; type: 'types'; types: string }
  | { id: number; type: 'complete'; code: string; pos: number }
  | { id: number; type: 'diagnose'; code: string };

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  try {
    if (request.type === 'types') {
      set(TYPES, PRELUDE + request.types);
      postMessage({ id: request.id, result: true });
      return;
    }
    set(MAIN, HEADER + request.code);
    if (request.type === 'complete') {
      const completions = service.getCompletionsAtPosition(MAIN, HEADER.length + request.pos, {
        includeCompletionsWithInsertText: true,
      });
      const entries = (completions?.entries ?? [])
        .slice(0, 300)
        .map((entry) => ({ label: entry.name, type: entry.kind, sortText: entry.sortText }));
      postMessage({
        id: request.id,
        result: {
          entries,
          from: completions?.optionalReplacementSpan
            ? completions.optionalReplacementSpan.start - HEADER.length
            : undefined,
        },
      });
      return;
    }
    const diagnostics = [
      ...service.getSyntacticDiagnostics(MAIN),
      ...service.getSemanticDiagnostics(MAIN),
    ].map((diagnostic) => ({
      from: Math.max(0, (diagnostic.start ?? HEADER.length) - HEADER.length),
      to: Math.max(0, (diagnostic.start ?? HEADER.length) + (diagnostic.length ?? 0) - HEADER.length),
      message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
      severity: diagnostic.category === ts.DiagnosticCategory.Error ? 'error' : 'warning',
    }));
    postMessage({ id: request.id, result: diagnostics });
  } catch (error) {
    postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
};
