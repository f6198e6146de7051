import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Path of a built entry of this package (`sandbox-child.js`, `render-worker.js`): beside the
 * bundle in `dist/`, or in the package's `dist/` when the sources are imported (this file is then
 * `src/host/dist-file.ts`; this package's tests build first). Throws, saying so, when the package
 * was not built.
 */
export function resolveDistFile(name: string): string {
  const candidates = [new URL(`./${name}`, import.meta.url), new URL(`../../dist/${name}`, import.meta.url)];
  const found = candidates.find((url) => existsSync(fileURLToPath(url)));
  if (!found) throw new Error(`${name} not found: build @cyrnel/env-typescript-ivm first (pnpm build)`);
  return fileURLToPath(found);
}
