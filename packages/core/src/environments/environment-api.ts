import { DEFAULT_TYPES_MAX_BYTES, type EnvironmentModule, type TypesSelection } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';
import type { EnvironmentApi, ToolsApi } from '../host/host-api';
import { errorMessage } from '../scoped-logger';
import type { EnvironmentProvider } from './environment-provider';
import { typesSelection } from './types-selection';

/**
 * What the rendered declarations depend on besides the environment: a key that changes with every
 * catalog write (see `watchCatalog`) and every change of which adapters are active.
 */
export type CatalogStateKey = () => string;

/** Selections whose declarations are kept per catalog state (an agent asks again for what it picked). */
const MAX_SELECTIONS = 32;

/**
 * The active environment's docs and type declarations (503 without one). A selection's are
 * bounded by `maxBytes` (`DEFAULT_TYPES_MAX_BYTES` per tool and type asked for unless given); the
 * whole catalog's are whole unless a budget is asked for. The whole catalog's
 * declarations are rendered once per catalog state (see {@link CatalogStateKey}) and environment;
 * a selection's on demand, the last {@link MAX_SELECTIONS} kept for that state. Concurrent
 * requests share a rendering.
 */
export function createEnvironmentApi(
  environments: EnvironmentProvider,
  tools: ToolsApi,
  catalogState: CatalogStateKey,
): EnvironmentApi {
  // Only the current state's renderings are kept: an older state is never asked for again.
  let rendered:
    | {
        key: string;
        byEnvironment: WeakMap<EnvironmentModule, Map<string, Promise<string>>>;
      }
    | undefined;
  const active = () => {
    const environment = environments.active();
    if (!environment) throw cyrnelError('module_unavailable', 'no environment is active');
    return environment;
  };
  const render = async (what: string, task: () => Promise<string>) => {
    try {
      return await task();
    } catch (error) {
      throw cyrnelError(
        'upstream_failed',
        `the environment failed to render ${what}: ${errorMessage(error)}`,
      );
    }
  };
  return {
    async docs() {
      const environment = active();
      return render('docs', () => environment.generateDocs());
    },
    async types(rawSelection?: TypesSelection) {
      const selection = typesSelection(rawSelection);
      const environment = active();
      const generateTypes = environment.generateTypes?.bind(environment);
      if (!generateTypes)
        throw cyrnelError('module_unavailable', 'the active environment does not render type declarations');
      const key = catalogState();
      if (rendered?.key !== key) rendered = { key, byEnvironment: new WeakMap() };
      const { byEnvironment } = rendered;
      let cache = byEnvironment.get(environment);
      if (!cache) {
        cache = new Map();
        byEnvironment.set(environment, cache);
      }
      // '' is the whole catalog, kept for the state; selections are kept while recently used.
      const selectionKey = selection?.key ?? '';
      let types = cache.get(selectionKey);
      if (types) {
        if (selectionKey !== '') {
          cache.delete(selectionKey);
          cache.set(selectionKey, types);
        }
        return types;
      }
      // Unknown names are the caller's 400, not the environment's failure: resolved outside `render`.
      // A selection is bounded by default; the whole catalog (an editor's completions) only when asked.
      const maxBytes = selection ? (selection.maxBytes ?? DEFAULT_TYPES_MAX_BYTES) : undefined;
      const names = selection?.types ?? [];
      types = Promise.all([
        tools.docsInputs(rawSelection),
        names.length > 0 ? tools.typeSources(names) : [],
      ]).then(([inputs, typeSources]) =>
        render('types', () =>
          generateTypes(inputs, {
            ...(maxBytes === undefined ? {} : { maxBytes }),
            ...(names.length > 0 ? { types: [...names], typeSources } : {}),
          }),
        ),
      );
      const entries = cache;
      entries.set(selectionKey, types);
      // A failure is not kept: the next request renders again.
      types.catch(() => entries.delete(selectionKey));
      for (const oldest of entries.keys()) {
        if (entries.size <= MAX_SELECTIONS + 1) break;
        if (oldest !== '') entries.delete(oldest);
      }
      return types;
    },
  };
}
