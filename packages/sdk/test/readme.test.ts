import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');
const snippets = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');

/** Type-check one snippet as a module, resolving `@cyrnel/sdk` to this package's sources. */
function diagnose(source: string): string[] {
  const fileName = `${root}test/__readme_snippet__.ts`;
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
    paths: { '@cyrnel/sdk': [`${root}src/index.ts`], '@cyrnel/sdk/api': [`${root}src/api.ts`] },
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (name === fileName ? source : readFile(name));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || fileExists(name);
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('README', () => {
  it('has a minimal adapter and a minimal environment', () => {
    expect(snippets.some((s) => s.includes('implements AdapterModule'))).toBe(true);
    expect(snippets.some((s) => s.includes('implements EnvironmentModule'))).toBe(true);
  });

  it.each(snippets.map((source, index) => [index, source] as const))(
    'snippet %i type-checks',
    (_, source) => {
      expect(diagnose(source)).toEqual([]);
    },
  );
});
