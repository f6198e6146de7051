import type { ModuleListQuery, SetEnabledRequest } from '@cyrnel/sdk/api';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { validateBody } from '../validation/body-schema';
import { ENABLED_BODY } from '../validation/enabled-body';
import { validateJsonPatch } from '../validation/json-patch';
import { PAGE_QUERY, parseQuery } from '../validation/query';
import type { RouteContext } from './route-context';

const LIST_QUERY = {
  ...PAGE_QUERY,
  type: { type: 'enum', values: ['adapter', 'environment'] },
  enabled: { type: 'boolean' },
  isBuiltin: { type: 'boolean' },
  query: { type: 'string' },
} as const;

/** `/modules` routes (SPEC §6). */
export function moduleRoutes(ctx: RouteContext): Hono<AppEnv> {
  const { host } = ctx;
  const app = new Hono<AppEnv>();
  app.get('/', async (c) =>
    c.json(await host.modules.list(parseQuery<ModuleListQuery>(c.req.url, LIST_QUERY))),
  );
  app.post('/reload', async (c) => {
    // No fields are defined: an empty body or `{}` only, like every other strict route.
    validateBody(await ctx.body(c, {}), {});
    return c.json(await host.modules.reload());
  });
  app.get('/:moduleId', async (c) => c.json(await host.modules.get(c.req.param('moduleId'))));
  app.post('/:moduleId/enabled', async (c) => {
    const { enabled } = validateBody<SetEnabledRequest>(await ctx.body(c), ENABLED_BODY);
    return c.json(await host.modules.setEnabled(c.req.param('moduleId'), enabled));
  });
  app.get('/:moduleId/config', async (c) =>
    c.json({ config: await host.modules.getConfig(c.req.param('moduleId')) }),
  );
  app.patch('/:moduleId/config', async (c) => {
    const patch = validateJsonPatch(await ctx.body(c));
    return c.json({ config: await host.modules.patchConfig(c.req.param('moduleId'), patch) });
  });
  app.get('/:moduleId/secrets', async (c) =>
    c.json({ present: await host.modules.getSecretsPresent(c.req.param('moduleId')) }),
  );
  app.patch('/:moduleId/secrets', async (c) => {
    const patch = validateJsonPatch(await ctx.body(c));
    await host.modules.patchSecrets(c.req.param('moduleId'), patch);
    return c.json({ updated: true });
  });
  app.get('/:moduleId/config/schema', async (c) =>
    c.json((await host.modules.get(c.req.param('moduleId'))).configSchema),
  );
  app.get('/:moduleId/secrets/schema', async (c) =>
    c.json((await host.modules.get(c.req.param('moduleId'))).secretsSchema),
  );
  return app;
}
