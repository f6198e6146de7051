import type { EnvironmentModule } from '@cyrnel/sdk';
import type { EnvironmentProvider } from './environment-provider';
import { UnavailableError, UpstreamError } from './errors';
import type { EnvironmentApi, ToolsApi } from './host';
import { errorMessage } from './scoped-logger';

/**
 * What the rendered declarations depend on besides the environment: a key that changes with every
 * catalog write (see `watchCatalog`) and every change of which adapters are active.
 */
export type CatalogStateKey = () => string;

/**
 * The active environment's docs and type declarations (503 without one). Declarations are rendered
 * once per catalog state (see {@link CatalogStateKey}) and environment; concurrent requests share
 * the rendering.
 */
export function createEnvironmentApi(
  environments: EnvironmentProvider,
  tools: ToolsApi,
  catalogState: CatalogStateKey,
): EnvironmentApi {
  // Only the current state's renderings are kept: an older state is never asked for again.
  let rendered: { key: string; byEnvironment: WeakMap<EnvironmentModule, Promise<string>> } | undefined;
  const active = () => {
    const environment = environments.active();
    if (!environment) throw new UnavailableError('no environment is active');
    return environment;
  };
  const render = async (what: string, task: () => Promise<string>) => {
    try {
      return await task();
    } catch (error) {
      throw new UpstreamError(`the environment failed to render ${what}: ${errorMessage(error)}`);
    }
  };
  return {
    async docs() {
      const environment = active();
      return render('docs', () => environment.generateDocs());
    },
    async types() {
      const environment = active();
      const generateTypes = environment.generateTypes?.bind(environment);
      if (!generateTypes)
        throw new UnavailableError('the active environment does not render type declarations');
      const key = catalogState();
      if (rendered?.key !== key) rendered = { key, byEnvironment: new WeakMap() };
      const { byEnvironment } = rendered;
      let types = byEnvironment.get(environment);
      if (!types) {
        types = render('types', async () => generateTypes(await tools.docsInputs()));
        byEnvironment.set(environment, types);
        // A failure is not kept: the next request renders again.
        types.catch(() => byEnvironment.delete(environment));
      }
      return types;
    },
  };
}
