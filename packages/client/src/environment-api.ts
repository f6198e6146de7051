import type { TypesSelection } from '@cyrnel/sdk';
import { API_ROUTES } from '@cyrnel/sdk/api';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';

/** `/environment` endpoints: what an agent reads before writing code. */
export interface EnvironmentApi {
  /** `GET /environment/docs`: Markdown of the runtime rules. */
  docs(options?: RequestOptions): Promise<string>;
  /**
   * `GET /environment/types`: `declare const cyrnel: {...}` for every enabled tool, or for a
   * selection (whole services and/or `<serviceId>.<toolId>` tools; unknown names are a 400) within
   * `maxBytes` per tool (4096 by default): what lies beyond is a stub, `CyrnelStub<"<name>">`,
   * whose type `types: [name]` declares.
   *
   * @example
   * ```ts
   * const types = await client.environment.types({ tools: ['github.issues_create', 'github.repos_get'] });
   * const customer = await client.environment.types({ types: ['stripe.customer'] });
   * ```
   */
  types(selection?: TypesSelection, options?: RequestOptions): Promise<string>;
}

const routes = API_ROUTES.environment;

/** Build the `environment` group over the route caller. */
export function createEnvironmentApi(call: RouteCaller): EnvironmentApi {
  return {
    docs: (options) => call(routes.docs, {}, options),
    // Empty lists are left out of the query: the whole catalog, as without a selection.
    types: (selection, options) =>
      call(
        routes.types,
        {
          query: {
            services: selection?.services,
            tools: selection?.tools,
            types: selection?.types,
            maxBytes: selection?.maxBytes === undefined ? undefined : String(selection.maxBytes),
          },
        },
        options,
      ),
  };
}
