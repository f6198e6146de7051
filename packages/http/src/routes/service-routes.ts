import { EMPTY_BODY, ENABLED_BODY, validateBody } from '@cyrnel/core';
import type {
  InstallServiceRequest,
  ServiceListQuery,
  SetEnabledRequest,
  UpdateServiceRequest,
} from '@cyrnel/sdk/api';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { PAGE_QUERY, parseQuery } from '../validation/query';
import type { RouteContext } from './route-context';
import { settingsRoutes } from './settings-routes';

export const SERVICE_LIST_QUERY = {
  ...PAGE_QUERY,
  query: { type: 'string' },
  enabled: { type: 'boolean' },
  adapter: { type: 'string' },
  failed: { type: 'boolean' },
} as const;

/** `/services` routes (SPEC §6). */
export function serviceRoutes(ctx: RouteContext): Hono<AppEnv> {
  const { host } = ctx;
  const app = new Hono<AppEnv>();
  app.get('/', async (c) =>
    c.json(await host.services.list(parseQuery<ServiceListQuery>(c.req.url, SERVICE_LIST_QUERY))),
  );
  // The core checks the body (REQUEST_BODIES.installService) and downloads a `url` under this
  // request's limits, aborted when the client leaves.
  app.post('/', async (c) =>
    c.json(await host.services.install((await ctx.body(c)) as InstallServiceRequest, ctx.download(c)), 201),
  );
  // Issue 16: services from registries. The core validates the body (strict fields).
  app.post('/install', async (c) => c.json(await host.services.installFromRegistry(await ctx.body(c)), 201));
  app.post('/:serviceId/update', async (c) => {
    validateBody(await ctx.body(c, {}), EMPTY_BODY);
    return c.json(await host.services.updateFromRegistry(c.req.param('serviceId')));
  });
  // Issue 18: tools listed again by adapters that discover them live (MCP servers).
  app.post('/:serviceId/refresh', async (c) => {
    validateBody(await ctx.body(c, {}), EMPTY_BODY);
    return c.json(await host.services.refresh(c.req.param('serviceId')));
  });
  app.get('/:serviceId', async (c) => c.json(await host.services.get(c.req.param('serviceId'))));
  app.patch('/:serviceId', async (c) =>
    c.json(
      await host.services.update(
        c.req.param('serviceId'),
        (await ctx.body(c)) as UpdateServiceRequest,
        ctx.download(c),
      ),
    ),
  );
  app.delete('/:serviceId', async (c) => {
    await host.services.delete(c.req.param('serviceId'));
    return c.body(null, 204);
  });
  app.post('/:serviceId/enabled', async (c) => {
    const { enabled } = validateBody<SetEnabledRequest>(await ctx.body(c), ENABLED_BODY);
    return c.json(await host.services.setEnabled(c.req.param('serviceId'), enabled));
  });
  app.route(
    '/:serviceId',
    settingsRoutes(ctx, (c) => ({ api: host.services, id: c.req.param('serviceId') as string })),
  );
  return app;
}
