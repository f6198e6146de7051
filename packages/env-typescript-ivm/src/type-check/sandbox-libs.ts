import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The standard library the sandbox's V8 implements: ES2024 (isolated-vm 7 on Node 24). */
const ROOT_LIB = 'lib.es2024.d.ts';

/**
 * Library files whose globals the sandbox removes before user code runs (its bootstrap deletes
 * `SharedArrayBuffer`, `Atomics` and `FinalizationRegistry`), so code using them fails the check
 * as it would fail the run. `es2021.weakref` declares `FinalizationRegistry` beside `WeakRef`,
 * which the sandbox keeps: {@link WEAK_REF_DECLARATION} declares that one alone.
 */
const REMOVED = /sharedmemory|es2021\.weakref/;

/** `WeakRef` as `lib.es2021.weakref.d.ts` declares it, without `FinalizationRegistry`. */
export const WEAK_REF_DECLARATION = `interface WeakRef<T extends WeakKey> {
  readonly [Symbol.toStringTag]: "WeakRef";
  deref(): T | undefined;
}
interface WeakRefConstructor {
  readonly prototype: WeakRef<any>;
  new <T extends WeakKey>(target: T): WeakRef<T>;
}
declare var WeakRef: WeakRefConstructor;
`;

const REFERENCE = /^\/\/\/\s*<reference\s+lib="([^"]+)"\s*\/>/gm;

/** A library file and its text. */
export interface LibFile {
  /** The file's name, `lib.es2015.core.d.ts`. */
  readonly name: string;
  readonly text: string;
}

/**
 * The library files of the sandbox's globals, read from TypeScript's `lib/` folder: every file
 * `lib.es2024.d.ts` reaches through `/// <reference lib>`, less those of the globals the sandbox
 * removes. Only the files that declare something are listed (the aggregates, `lib.es2022.d.ts`
 * and the like, only reference the others and would pull the removed ones back in).
 *
 * @example
 * ```ts
 * const libs = sandboxLibFiles(dirname(require.resolve('typescript')));
 * libs.some((lib) => lib.name === 'lib.es2017.sharedmemory.d.ts'); // false
 * ```
 */
export function sandboxLibFiles(libDir: string): LibFile[] {
  const files: LibFile[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || REMOVED.test(name)) return;
    seen.add(name);
    const text = readFileSync(join(libDir, name), 'utf8');
    const references = [...text.matchAll(REFERENCE)].map((match) => `lib.${match[1]}.d.ts`);
    for (const reference of references) visit(reference);
    const declares =
      text
        .replace(REFERENCE, '')
        .replace(/\/\/\/.*|\/\*[\s\S]*?\*\//g, '')
        .trim() !== '';
    if (declares) files.push({ name, text });
  };
  visit(ROOT_LIB);
  return files;
}
