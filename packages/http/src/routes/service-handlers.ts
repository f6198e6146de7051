import type { SERVICE_ROUTES } from '@cyrnel/sdk/api';
import type { RouteContext } from './route-context';
import { hostValidates, type RouteHandlers } from './route-handler';
import { settingsHandlers } from './settings-handlers';

/** The handlers of `/services`. */
export function serviceHandlers(ctx: RouteContext): RouteHandlers<typeof SERVICE_ROUTES> {
  const { host } = ctx;
  return {
    list: async ({ query }) => host.services.list(query),
    // The host checks the body, then downloads a `url` under this request's limits (aborted when
    // the client leaves): nothing is downloaded for a bad body.
    install: hostValidates(async ({ body }, c) => host.services.install(body, ctx.download(c))),
    installFromRegistry: hostValidates(async ({ body }) => host.services.installFromRegistry(body)),
    updateFromRegistry: async ({ params }) => host.services.updateFromRegistry(params.serviceId),
    refresh: async ({ params }) => host.services.refresh(params.serviceId),
    get: async ({ params }) => host.services.get(params.serviceId),
    // An unknown service is refused by the host before anything is downloaded.
    update: hostValidates(async ({ params, body }, c) =>
      host.services.update(params.serviceId, body, ctx.download(c)),
    ),
    delete: async ({ params }) => host.services.delete(params.serviceId),
    setEnabled: async ({ params, body }) => host.services.setEnabled(params.serviceId, body.enabled),
    setObserveOutputs: async ({ params, body }) =>
      host.services.setObserveOutputs(params.serviceId, body.enabled),
    stats: async ({ params }) => host.services.stats(params.serviceId),
    getPolicy: async ({ params }) => host.policies.get(params.serviceId),
    // The host checks the rules: known policies, annotations and labels (400), tools of the service (404).
    setPolicy: hostValidates(async ({ params, body }) => host.policies.set(params.serviceId, body)),
    ...settingsHandlers(
      () => host.services,
      ({ serviceId }: { serviceId: string }) => serviceId,
    ),
  };
}
