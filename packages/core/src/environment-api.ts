import type { EnvironmentModule } from '@cyrnel/sdk';
import type { DiscoveryIndex, DiscoverySnapshot } from './discovery-index';
import type { EnvironmentProvider } from './environment-provider';
import { UnavailableError, UpstreamError } from './errors';
import type { EnvironmentApi, ToolsApi } from './host';
import { errorMessage } from './scoped-logger';

/**
 * The active environment's docs and type declarations (503 without one). Declarations are rendered
 * once per discovery snapshot (a new one follows every catalog write or adapter change) and
 * environment; concurrent requests share the rendering.
 */
export function createEnvironmentApi(
  environments: EnvironmentProvider,
  tools: ToolsApi,
  discovery: DiscoveryIndex,
): EnvironmentApi {
  const rendered = new WeakMap<DiscoverySnapshot, WeakMap<EnvironmentModule, Promise<string>>>();
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
      const snapshot = await discovery.current();
      let byEnvironment = rendered.get(snapshot);
      if (!byEnvironment) {
        byEnvironment = new WeakMap();
        rendered.set(snapshot, byEnvironment);
      }
      let types = byEnvironment.get(environment);
      if (!types) {
        types = render('types', async () => generateTypes(await tools.docsInputs()));
        byEnvironment.set(environment, types);
        // A failure is not kept: the next request renders again.
        types.catch(() => byEnvironment?.delete(environment));
      }
      return types;
    },
  };
}
