import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import type { RouteContext } from './route-context';

/** `/registries` routes (issue 16): the configured registries and what they offer, read now. */
export function registryRoutes(ctx: RouteContext): Hono<AppEnv> {
  const { host } = ctx;
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => c.json({ items: await host.registries.list() }));
  app.get('/services', async (c) => c.json({ items: await host.registries.services() }));
  app.get('/modules', async (c) => c.json({ items: await host.registries.modules() }));
  return app;
}
