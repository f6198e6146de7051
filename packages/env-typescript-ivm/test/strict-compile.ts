import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * The diagnostics of one `tsc --strict` program over the given declarations (each made a module,
 * so each `declare const cyrnel` stays its own), as `label:line: TSnnnn: message`.
 */
export function strictDiagnostics(files: Readonly<Record<string, string>>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-strict-'));
  try {
    const paths = new Map<string, string>();
    for (const [label, text] of Object.entries(files)) {
      const path = join(dir, `${label.replace(/[^A-Za-z0-9]+/g, '_')}.ts`);
      writeFileSync(path, `${text}\nexport {};\n`);
      paths.set(path, label);
    }
    const program = ts.createProgram([...paths.keys()], {
      noEmit: true,
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      lib: ['lib.es2023.d.ts'],
      types: [],
    });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      if (!diagnostic.file || diagnostic.start === undefined) return `TS${diagnostic.code}: ${message}`;
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      return `${paths.get(diagnostic.file.fileName)}:${line + 1}: TS${diagnostic.code}: ${message}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
