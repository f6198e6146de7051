import type { CatalogStorage } from '../catalog/catalog-storage';

/** Most service names of one program looked up (hostile code could name thousands). */
export const MAX_NAMED_SERVICES = 64;

// `services.github`, `services?.github`, `services['github']`, `services?.["github"]`: linear
// (each alternative is a fixed prefix and one bounded run of characters).
const NAMED =
  /\bservices\s*(?:\?\.\s*|\.\s*)([A-Za-z_$][\w$]*)|\bservices\s*(?:\?\.\s*)?\[\s*(['"`])([^'"`\\\n]{1,200})\2\s*\]/g;

/**
 * The ids of the services `code` names (`cyrnel.services.<id>`, also in bracket form), in order,
 * at most {@link MAX_NAMED_SERVICES}. Names built at run time are not seen.
 *
 * @example
 * ```ts
 * namedServices("await cyrnel.services.github.tools.getRepo.invoke({})"); // ['github']
 * ```
 */
export function namedServices(code: string): string[] {
  const names = new Set<string>();
  for (const match of code.matchAll(NAMED)) {
    const name = match[1] ?? match[3];
    if (name !== undefined) names.add(name);
    if (names.size >= MAX_NAMED_SERVICES) break;
  }
  return [...names];
}

/** Options of {@link createProcessNeeds}. */
export interface ProcessNeedsOptions {
  readonly catalog: Pick<CatalogStorage, 'getService'>;
  /** Grows with every catalog change: the lookups are kept per value. */
  readonly revision: () => string | number;
  /** The environment that runs processes here. */
  readonly environmentId: () => string | undefined;
}

/**
 * What a run needs of a host: the environment that runs processes and the adapter
 * modules of the services its code names. A host that lacks one of them (which another live
 * host has) leaves the run to the shared queue. A service named only at run time is not seen:
 * its calls fail on a host without its adapter with the gate's own `module_unavailable`.
 */
export function createProcessNeeds(options: ProcessNeedsOptions): (code: string) => Promise<string[]> {
  let cached = new Map<string, string | null>();
  let cachedAt: string | number | undefined;
  return async (code) => {
    const revision = options.revision();
    if (revision !== cachedAt || cached.size > 10_000) {
      cached = new Map();
      cachedAt = revision;
    }
    const needs = new Set<string>();
    const environment = options.environmentId();
    if (environment) needs.add(environment);
    for (const name of namedServices(code)) {
      let adapter = cached.get(name);
      if (adapter === undefined) {
        adapter = (await options.catalog.getService(name))?.adapter ?? null;
        cached.set(name, adapter);
      }
      if (adapter !== null) needs.add(adapter);
    }
    return [...needs];
  };
}
