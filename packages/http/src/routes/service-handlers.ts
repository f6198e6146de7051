import { resolveDefinition } from '@cyrnel/core';
import type { SERVICE_ROUTES } from '@cyrnel/sdk/api';
import type { RouteContext } from './route-context';
import { hostValidates, type RouteHandlers } from './route-handler';
import { settingsHandlers } from './settings-handlers';

/**
 * The handlers of `/services`. An install or a new definition by URL is downloaded here (core's
 * `resolveDefinition`, under the request's abort signal) after its body was checked, so nothing is
 * downloaded for a bad body; the host checks its own input strictly again.
 */
export function serviceHandlers(ctx: RouteContext): RouteHandlers<typeof SERVICE_ROUTES> {
  const { host } = ctx;
  return {
    list: async ({ query }) => host.services.list(query),
    install: async ({ body }, c) => {
      const { definition, source } = await resolveDefinition(body, ctx.download(c));
      return host.services.install({
        id: body.id,
        adapter: body.adapter,
        definition,
        source,
        ...(body.config === undefined ? {} : { config: body.config }),
        ...(body.secrets === undefined ? {} : { secrets: body.secrets }),
        ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
      });
    },
    installFromRegistry: hostValidates(async ({ body }) => host.services.installFromRegistry(body)),
    updateFromRegistry: async ({ params }) => host.services.updateFromRegistry(params.serviceId),
    refresh: async ({ params }) => host.services.refresh(params.serviceId),
    get: async ({ params }) => host.services.get(params.serviceId),
    update: async ({ params, body }, c) => {
      // Unknown services are refused before anything is downloaded.
      await host.services.get(params.serviceId);
      const { definition, source } = await resolveDefinition(body, ctx.download(c));
      return host.services.update(params.serviceId, { definition, source });
    },
    delete: async ({ params }) => host.services.delete(params.serviceId),
    setEnabled: async ({ params, body }) => host.services.setEnabled(params.serviceId, body.enabled),
    ...settingsHandlers(
      () => host.services,
      ({ serviceId }: { serviceId: string }) => serviceId,
    ),
  };
}
