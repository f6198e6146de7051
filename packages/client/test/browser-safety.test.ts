import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
const sources = readdirSync(SRC)
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
  .map((file) => ({ file, text: readFileSync(join(SRC, file), 'utf8') }));

describe('client sources', () => {
  it('import no Node built-ins and nothing at runtime but their own files', () => {
    expect(sources.length).toBeGreaterThan(5);
    for (const { file, text } of sources) {
      const runtimeImports = [...text.matchAll(/^import (?!type )[^;]*? from '([^']+)'/gm)].map((m) => m[1]);
      const offenders = runtimeImports.filter((specifier) => !specifier?.startsWith('./'));
      expect({ file, offenders }).toEqual({ file, offenders: [] });
      // Doc comments may show Node usage (process.env in an example); code may not.
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code).not.toMatch(/\bprocess\.|\bBuffer\b|\brequire\(/);
    }
  });
});
