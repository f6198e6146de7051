import type { ENVIRONMENT_ROUTES } from '@cyrnel/sdk/api';
import type { RouteContext } from './route-context';
import type { RouteHandlers } from './route-handler';

/** The handlers of `/environment`. */
export function environmentHandlers({ host }: RouteContext): RouteHandlers<typeof ENVIRONMENT_ROUTES> {
  return {
    docs: async () => host.environment.docs(),
    // Services and tools their union; none of them, no types and no budget: the whole catalog.
    types: async ({ query: { services, tools, types, maxBytes } }) =>
      host.environment.types(
        services || tools || types || maxBytes !== undefined
          ? {
              ...(services === undefined ? {} : { services }),
              ...(tools === undefined ? {} : { tools }),
              ...(types === undefined ? {} : { types }),
              // Checked by the core: an integer within bounds, else a 400.
              ...(maxBytes === undefined ? {} : { maxBytes: maxBytes as unknown as number }),
            }
          : undefined,
      ),
  };
}
