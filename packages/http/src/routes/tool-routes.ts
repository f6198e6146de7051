import { ENABLED_BODY, validateBody } from '@cyrnel/core';
import type { SetEnabledRequest, ToolListQuery } from '@cyrnel/sdk/api';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { PAGE_QUERY, parseQuery } from '../validation/query';
import type { RouteContext } from './route-context';

export const TOOL_LIST_QUERY = {
  ...PAGE_QUERY,
  serviceId: { type: 'string' },
  query: { type: 'string' },
  enabled: { type: 'boolean' },
} as const;

/** `/tools` and `/environment` routes (SPEC §6, seed 004). */
export function toolRoutes(ctx: RouteContext): Hono<AppEnv> {
  const { host } = ctx;
  const app = new Hono<AppEnv>();
  app.get('/tools', async (c) =>
    c.json(await host.tools.list(parseQuery<ToolListQuery>(c.req.url, TOOL_LIST_QUERY))),
  );
  app.get('/tools/:serviceId/:toolId', async (c) =>
    c.json(await host.tools.get(c.req.param('serviceId'), c.req.param('toolId'))),
  );
  app.get('/tools/:serviceId/:toolId/docs', async (c) => {
    const markdown = await host.tools.docs(c.req.param('serviceId'), c.req.param('toolId'));
    return c.body(markdown, 200, { 'content-type': 'text/markdown; charset=utf-8' });
  });
  app.post('/tools/:serviceId/:toolId/enabled', async (c) => {
    const { enabled } = validateBody<SetEnabledRequest>(await ctx.body(c), ENABLED_BODY);
    return c.json(await host.tools.setEnabled(c.req.param('serviceId'), c.req.param('toolId'), enabled));
  });
  app.get('/environment/docs', async (c) =>
    c.body(await host.environment.docs(), 200, { 'content-type': 'text/markdown; charset=utf-8' }),
  );
  // `?services=a,b&tools=svc.tool,svc.tool2` (also repeated): the union; none is the whole catalog.
  app.get('/environment/types', async (c) => {
    const list = (name: string) => c.req.queries(name)?.flatMap((value) => value.split(','));
    const services = list('services');
    const tools = list('tools');
    const selection = {
      ...(services === undefined ? {} : { services }),
      ...(tools === undefined ? {} : { tools }),
    };
    const types = await host.environment.types(services || tools ? selection : undefined);
    return c.body(types, 200, { 'content-type': 'text/plain; charset=utf-8' });
  });
  return app;
}
