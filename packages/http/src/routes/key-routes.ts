import type { KeyRing } from '@cyrnel/core';
import type { CreateKeyRequest, KeyListQuery } from '@cyrnel/sdk/api';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { PAGE_QUERY, parseQuery } from '../validation/query';
import type { RouteContext } from './route-context';

/** `/keys` routes (issue 13): admin only, like every route the role guard does not open to agents. */
export function keyRoutes(ctx: RouteContext, keys: KeyRing): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/', async (c) => {
    // The key ring checks the body (name, role, nothing else).
    const created = await keys.create((await ctx.body(c)) as CreateKeyRequest);
    // The only response that ever holds the key: keep it out of every cache.
    c.header('Cache-Control', 'no-store');
    return c.json(created, 201);
  });
  app.get('/', async (c) => c.json(await keys.list(parseQuery<KeyListQuery>(c.req.url, PAGE_QUERY))));
  app.delete('/:id', async (c) => {
    await keys.delete(c.req.param('id'));
    return c.body(null, 204);
  });
  return app;
}
