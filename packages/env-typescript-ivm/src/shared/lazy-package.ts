import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

/**
 * A package loaded by the first call of the function answered, not when this module is imported.
 * The server imports this package for its environment module alone and needs none of the
 * sandbox's tools (isolated-vm, sucrase, acorn, eslint-scope): only sandbox processes and the
 * render and type-check workers use them. The packages named are CommonJS-loadable (each ships a
 * `require` entry), so the load is synchronous.
 *
 * @example
 * ```ts
 * const sucrase = lazyPackage<typeof import('sucrase')>('sucrase');
 * sucrase().transform(code, { transforms: ['typescript'] });
 * ```
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= requireHere(name) as T;
    return loaded;
  };
}
