import { EMPTY_BODY, ENABLED_BODY, validateBody } from '@cyrnel/core';
import type { ModuleListQuery, SetEnabledRequest } from '@cyrnel/sdk/api';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { PAGE_QUERY, parseQuery } from '../validation/query';
import type { RouteContext } from './route-context';
import { settingsRoutes } from './settings-routes';

export const MODULE_LIST_QUERY = {
  ...PAGE_QUERY,
  // The host checks the value (`adapter` or `environment`).
  type: { type: 'string' },
  enabled: { type: 'boolean' },
  isBuiltin: { type: 'boolean' },
  query: { type: 'string' },
} as const;

/** `/modules` routes (SPEC §6). */
export function moduleRoutes(ctx: RouteContext): Hono<AppEnv> {
  const { host } = ctx;
  const app = new Hono<AppEnv>();
  app.get('/', async (c) =>
    c.json(await host.modules.list(parseQuery<ModuleListQuery>(c.req.url, MODULE_LIST_QUERY))),
  );
  app.post('/reload', async (c) => {
    // No fields are defined: an empty body or `{}` only, like every other strict route.
    validateBody(await ctx.body(c, {}), EMPTY_BODY);
    return c.json(await host.modules.reload());
  });
  // Issue 16: modules from npm and registries. The core validates the bodies (strict fields).
  app.post('/install', async (c) => c.json(await host.modules.install(await ctx.body(c)), 201));
  app.get('/:moduleId', async (c) => c.json(await host.modules.get(c.req.param('moduleId'))));
  app.patch('/:moduleId', async (c) =>
    c.json(await host.modules.configure(c.req.param('moduleId'), await ctx.body(c))),
  );
  app.post('/:moduleId/update', async (c) => {
    validateBody(await ctx.body(c, {}), EMPTY_BODY);
    return c.json(await host.modules.update(c.req.param('moduleId')));
  });
  app.post('/:moduleId/enabled', async (c) => {
    const { enabled } = validateBody<SetEnabledRequest>(await ctx.body(c), ENABLED_BODY);
    return c.json(await host.modules.setEnabled(c.req.param('moduleId'), enabled));
  });
  app.route(
    '/:moduleId',
    settingsRoutes(ctx, (c) => ({ api: host.modules, id: c.req.param('moduleId') as string })),
  );
  return app;
}
