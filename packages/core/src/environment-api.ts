import type { EnvironmentProvider } from './environment-provider';
import { UnavailableError, UpstreamError } from './errors';
import type { EnvironmentApi, ToolsApi } from './host';
import { errorMessage } from './scoped-logger';

/** The active environment's docs and type declarations (503 without one). */
export function createEnvironmentApi(environments: EnvironmentProvider, tools: ToolsApi): EnvironmentApi {
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
      const inputs = await tools.docsInputs();
      return render('types', () => generateTypes(inputs));
    },
  };
}
