import { validateBody } from '@cyrnel/core';
import { listRoutes, type Route, type RouteAnswer } from '@cyrnel/sdk/api';
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../app-env';
import { parseProcessId } from '../validation/params';
import { parseQuery } from '../validation/query';
import type { RouteContext } from './route-context';
import type { ApiHandlers, HandlerInput, RouteHandler } from './route-handler';

const TEXT = { 'content-type': 'text/plain; charset=utf-8' } as const;
const MARKDOWN = { 'content-type': 'text/markdown; charset=utf-8' } as const;

/**
 * Mount every route of `API_ROUTES` whose resource has handlers (the keys' and principals' only with a key ring),
 * in the table's order: each reads its parameters, query and body as its entry declares, calls
 * its handler and renders the answer.
 */
export function mountRoutes(app: Hono<AppEnv>, handlers: Partial<ApiHandlers>, ctx: RouteContext): void {
  for (const { resource, name, route } of listRoutes()) {
    const group = handlers[resource] as Readonly<Record<string, RouteHandler<Route>>> | undefined;
    const handler = group?.[name];
    if (handler) app.on(route.method, route.path, (c) => serve(route, handler, c, ctx));
  }
}

async function serve(
  route: Route,
  handler: RouteHandler<Route>,
  c: Context<AppEnv>,
  ctx: RouteContext,
): Promise<Response> {
  const hostValidates = typeof handler !== 'function';
  const params = readParams(route, c);
  const query = route.query ? parseQuery(c.req.url, route.query) : undefined;
  const body = route.body ? await ctx.body(c, route.body.optional ? {} : undefined) : undefined;
  if (route.body?.fields && !hostValidates) validateBody(body, route.body.fields);
  // Read as the entry declares, so they are what its handler's types say.
  const input = { params, query, body, caller: c.get('caller') } as HandlerInput<Route>;
  const result = await (hostValidates ? handler.hostValidates : handler)(input, c);
  return result instanceof Response ? result : render(route.answer, result, c);
}

/** The path parameters; an integer one (a process id) must be a positive integer. */
function readParams(route: Route, c: Context<AppEnv>): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const [name, param] of Object.entries(route.params)) {
    const raw = c.req.param(name) as string;
    params[name] = param.schema.type === 'integer' ? parseProcessId(raw) : raw;
  }
  return params;
}

function render(answer: RouteAnswer<unknown>, result: unknown, c: Context<AppEnv>): Response {
  switch (answer.media) {
    case 'json':
      return c.json(result as object, answer.status as ContentfulStatusCode);
    case 'text':
      return c.body(result as string, 200, TEXT);
    case 'markdown':
      return c.body(result as string, 200, MARKDOWN);
    case 'none':
      return c.body(null, 204);
    case 'events':
      throw new Error('an event stream handler answers its own Response');
  }
}
