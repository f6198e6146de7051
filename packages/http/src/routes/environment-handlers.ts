import type { ENVIRONMENT_ROUTES } from '@cyrnel/sdk/api';
import type { RouteContext } from './route-context';
import type { RouteHandlers } from './route-handler';

/** The handlers of `/environment`. */
export function environmentHandlers({ host }: RouteContext): RouteHandlers<typeof ENVIRONMENT_ROUTES> {
  return {
    docs: async () => host.environment.docs(),
    // The union of both lists; neither is the whole catalog.
    types: async ({ query: { services, tools } }) =>
      host.environment.types(
        services || tools
          ? { ...(services === undefined ? {} : { services }), ...(tools === undefined ? {} : { tools }) }
          : undefined,
      ),
  };
}
