import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** Static imports and re-exports (also multi-line), side-effect imports, dynamic `import()`. */
const IMPORT_PATTERNS = [
  /^\s*(?:import|export)\s[^'"]*?\sfrom\s*['"]([^'"]+)['"]/gm,
  /^\s*import\s*['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
];

/** Every module specifier imported or re-exported by the TypeScript files under `dir`. */
function importsUnder(dir: string): { file: string; specifier: string }[] {
  const found: { file: string; specifier: string }[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    for (const pattern of IMPORT_PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        found.push({ file: file.slice(root.length + 1), specifier: match[1] as string });
      }
    }
  }
  return found;
}

describe('@cyrnel/core package boundaries', () => {
  it('never imports a database library: storage is reached through its own ports', () => {
    const imports = importsUnder(join(root, 'src'));
    expect(imports.length).toBeGreaterThan(50);
    const database = imports.filter(({ specifier }) =>
      /^(kysely|better-sqlite3|pg|postgres|mysql2?|sqlite3?)(\/|$)/.test(specifier),
    );
    expect(database).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const dependencies = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
    // @types/semver: building the declarations needs it, and serve.sh installs production dependencies only.
    // vitest: an optional peer, for the storage conformance kits of `@cyrnel/core/testing`.
    // oauth4webapi: the OAuth client of services' OAuth (src/oauth/), instead of hand-written protocol code.
    // stemmer: the Porter stemmer of the in-memory catalog's search (SQLite's tokenizer stems the same).
    // @opentelemetry/api: spans of runs and tool calls; a no-op until an embedder registers an SDK.
    expect(dependencies.sort()).toEqual([
      '@cyrnel/sdk',
      '@opentelemetry/api',
      '@types/semver',
      'ajv',
      'ajv-draft-04',
      'ajv-formats',
      'oauth4webapi',
      're2js',
      'semver',
      'stemmer',
      'tar',
      'vitest',
    ]);
  });

  it('imports only node built-ins, the SDK, the OpenTelemetry API, its validation and module-archive libraries and its own files (tests also the module kits)', () => {
    const outside = importsUnder(join(root, 'src')).filter(
      ({ file, specifier }) =>
        !specifier.startsWith('.') &&
        !(file.endsWith('.test.ts') && specifier === '@cyrnel/testing') &&
        !specifier.startsWith('node:') &&
        !/^(@cyrnel\/sdk|@opentelemetry\/api|ajv|ajv-draft-04|ajv-formats|oauth4webapi|re2js|semver|stemmer|tar|vitest)(\/|$)/.test(
          specifier,
        ),
    );
    expect(outside).toEqual([]);
  });
});
