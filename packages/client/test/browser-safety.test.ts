import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The `.ts` sources below `dir`, tests left out. */
function sourcesIn(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => ({ file: relative(dir, join(dir, file)), text: readFileSync(join(dir, file), 'utf8') }));
}

const runtimeImports = (text: string) =>
  [...text.matchAll(/^import (?!type )[^;]*? from '([^']+)'/gm)].map((match) => match[1] ?? '');
// Doc comments may show Node usage (process.env in an example); code may not.
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');

const CLIENT = join(import.meta.dirname, '..', 'src');
// What the client runs of the SDK: the route table and the wire types (`@cyrnel/sdk/api`).
const SDK_API = join(import.meta.dirname, '..', '..', 'sdk', 'src', 'api');

describe('client sources', () => {
  it('import no Node built-ins and nothing at runtime but their own files and the route table', () => {
    const sources = sourcesIn(CLIENT);
    expect(sources.length).toBeGreaterThan(5);
    for (const { file, text } of sources) {
      const offenders = runtimeImports(text).filter(
        (specifier) => !specifier.startsWith('./') && specifier !== '@cyrnel/sdk/api',
      );
      expect({ file, offenders }).toEqual({ file, offenders: [] });
      expect(code(text)).not.toMatch(/\bprocess\.|\bBuffer\b|\brequire\(/);
    }
  });

  it('run of the SDK only its api sources, which import nothing but each other', () => {
    for (const { file, text } of sourcesIn(SDK_API)) {
      const offenders = runtimeImports(text).filter((specifier) => !specifier.startsWith('.'));
      expect({ file, offenders }).toEqual({ file, offenders: [] });
      expect(code(text)).not.toMatch(/\bprocess\.|\bBuffer\b|\brequire\(/);
    }
  });
});
