import { EMPTY_BODY, ENABLED_BODY, resolveDefinition, validateBody } from '@cyrnel/core';
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

export const SERVICE_INSTALL_BODY = {
  id: { type: 'string', required: true },
  adapter: { type: 'string', required: true },
  url: { type: 'string' },
  definition: { type: 'string' },
  config: { type: 'object' },
  secrets: { type: 'object' },
  enabled: { type: 'boolean' },
} as const;

export const SERVICE_UPDATE_BODY = { url: { type: 'string' }, definition: { type: 'string' } } as const;

/** `/services` routes (SPEC §6). */
export function serviceRoutes(ctx: RouteContext): Hono<AppEnv> {
  const { host } = ctx;
  const app = new Hono<AppEnv>();
  app.get('/', async (c) =>
    c.json(await host.services.list(parseQuery<ServiceListQuery>(c.req.url, SERVICE_LIST_QUERY))),
  );
  app.post('/', async (c) => {
    const body = validateBody<InstallServiceRequest>(await ctx.body(c), SERVICE_INSTALL_BODY);
    const { definition, source } = await resolveDefinition(body, ctx.download(c));
    const service = await host.services.install({
      id: body.id,
      adapter: body.adapter,
      definition,
      source,
      ...(body.config === undefined ? {} : { config: body.config }),
      ...(body.secrets === undefined ? {} : { secrets: body.secrets }),
      ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
    });
    return c.json(service, 201);
  });
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
  app.patch('/:serviceId', async (c) => {
    const body = validateBody<UpdateServiceRequest>(await ctx.body(c), SERVICE_UPDATE_BODY);
    // Unknown services are refused before anything is downloaded.
    await host.services.get(c.req.param('serviceId'));
    const { definition, source } = await resolveDefinition(body, ctx.download(c));
    return c.json(await host.services.update(c.req.param('serviceId'), { definition, source }));
  });
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
