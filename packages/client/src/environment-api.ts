import type { TypesSelection } from '@cyrnel/sdk';
import type { RequestOptions } from './request-options';
import type { Transport } from './transport';

/** `/environment` endpoints: what an agent reads before writing code. */
export interface EnvironmentApi {
  /** `GET /environment/docs`: Markdown of the runtime rules. */
  docs(options?: RequestOptions): Promise<string>;
  /**
   * `GET /environment/types`: `declare const cyrnel: {...}` for every enabled tool, or for a
   * selection (whole services and/or `<serviceId>.<toolId>` tools; unknown names are a 400).
   *
   * @example
   * ```ts
   * const types = await client.environment.types({ tools: ['github.issues_create', 'github.repos_get'] });
   * ```
   */
  types(selection?: TypesSelection, options?: RequestOptions): Promise<string>;
}

/** Build the `environment` group over a transport. */
export function createEnvironmentApi(transport: Transport): EnvironmentApi {
  return {
    docs: (options) => transport.text({ method: 'GET', path: '/environment/docs', options }),
    types: (selection, options) => {
      const query = {
        ...(selection?.services?.length ? { services: selection.services.join(',') } : {}),
        ...(selection?.tools?.length ? { tools: selection.tools.join(',') } : {}),
      };
      return transport.text({ method: 'GET', path: '/environment/types', query, options });
    },
  };
}
