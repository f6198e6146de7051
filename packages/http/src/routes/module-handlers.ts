import type { MODULE_ROUTES } from '@cyrnel/sdk/api';
import type { RouteContext } from './route-context';
import { hostValidates, type RouteHandlers } from './route-handler';
import { settingsHandlers } from './settings-handlers';

/** The handlers of `/modules`; the host checks install and configure bodies (strict fields). */
export function moduleHandlers({ host }: RouteContext): RouteHandlers<typeof MODULE_ROUTES> {
  return {
    list: async ({ query }) => host.modules.list(query),
    reload: async () => host.modules.reload(),
    install: hostValidates(async ({ body }) => host.modules.install(body)),
    get: async ({ params }) => host.modules.get(params.moduleId),
    configure: hostValidates(async ({ params, body }) => host.modules.configure(params.moduleId, body)),
    update: async ({ params }) => host.modules.update(params.moduleId),
    setEnabled: async ({ params, body }) => host.modules.setEnabled(params.moduleId, body.enabled),
    ...settingsHandlers(
      () => host.modules,
      ({ moduleId }: { moduleId: string }) => moduleId,
    ),
  };
}
