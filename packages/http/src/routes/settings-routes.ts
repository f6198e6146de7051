import type { JSONSchema } from '@cyrnel/sdk';
import type { JsonPatch } from '@cyrnel/sdk/api';
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../app-env';
import type { RouteContext } from './route-context';

/** What the settings routes call: the settings methods modules and services share. */
export interface SettingsApi {
  get(id: string): Promise<{ readonly configSchema: JSONSchema; readonly secretsSchema: JSONSchema }>;
  getConfig(id: string): Promise<Record<string, unknown>>;
  patchConfig(id: string, patch: JsonPatch): Promise<Record<string, unknown>>;
  getSecretsPresent(id: string): Promise<string[]>;
  patchSecrets(id: string, patch: JsonPatch): Promise<void>;
}

/** The owner a request addresses: the API holding its settings and its id (a path parameter). */
export interface ResolvedOwner {
  readonly api: SettingsApi;
  readonly id: string;
}

/**
 * The config and secrets routes of one kind of owner, mounted below its path (`/modules/:moduleId`,
 * `/services/:serviceId`): `GET`/`PATCH config`, `GET`/`PATCH secrets` (which never answers values)
 * and both schemas. Patch bodies are passed on as read: the host checks them.
 *
 * @example
 * ```ts
 * app.route('/:moduleId', settingsRoutes(ctx, (c) => ({ api: host.modules, id: c.req.param('moduleId') })));
 * ```
 */
export function settingsRoutes(
  ctx: RouteContext,
  resolveOwner: (c: Context<AppEnv>) => ResolvedOwner,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/config', async (c) => {
    const { api, id } = resolveOwner(c);
    return c.json({ config: await api.getConfig(id) });
  });
  app.patch('/config', async (c) => {
    const { api, id } = resolveOwner(c);
    return c.json({ config: await api.patchConfig(id, (await ctx.body(c)) as JsonPatch) });
  });
  app.get('/secrets', async (c) => {
    const { api, id } = resolveOwner(c);
    return c.json({ present: await api.getSecretsPresent(id) });
  });
  app.patch('/secrets', async (c) => {
    const { api, id } = resolveOwner(c);
    await api.patchSecrets(id, (await ctx.body(c)) as JsonPatch);
    return c.json({ updated: true });
  });
  app.get('/config/schema', async (c) => {
    const { api, id } = resolveOwner(c);
    return c.json((await api.get(id)).configSchema);
  });
  app.get('/secrets/schema', async (c) => {
    const { api, id } = resolveOwner(c);
    return c.json((await api.get(id)).secretsSchema);
  });
  return app;
}
