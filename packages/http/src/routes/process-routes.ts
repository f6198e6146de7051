import { cyrnelError, EMPTY_BODY, type ProcessesApi, scopeProcesses, validateBody } from '@cyrnel/core';
import type { CreateProcessRequest, ProcessListQuery, RunProcessRequest } from '@cyrnel/sdk/api';
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { parseProcessId } from '../validation/params';
import { PAGE_QUERY, parseQuery } from '../validation/query';
import { processEvents } from './process-events';
import type { RouteContext } from './route-context';

export const PROCESS_LIST_QUERY = {
  ...PAGE_QUERY,
  // Their values are the host's to check (`state`, `exitState` must name states).
  state: { type: 'string' },
  exitState: { type: 'string' },
  ref: { type: 'string' },
  keyId: { type: 'string' },
} as const;

/**
 * Split this route's own `wait` option off a create body; the host checks the rest (the
 * `CreateProcessRequest`). A body that is no object goes on whole, for the host to refuse.
 */
function splitWait(body: unknown): { wait: boolean; request: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Object.hasOwn(body, 'wait')) {
    return { wait: false, request: body };
  }
  const { wait, ...request } = body as Record<string, unknown>;
  validateBody({ wait }, { wait: { type: 'boolean' } });
  return { wait: wait === true, request };
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8' } as const;

/** `/processes` routes (SPEC §6). */
export function processRoutes(ctx: RouteContext): Hono<AppEnv> {
  // Issue 13: a process belongs to the key that created it; an agent key sees only its own.
  const processesOf = (c: Context<AppEnv>): ProcessesApi => {
    const { keyId, role } = c.get('caller');
    if (role === 'admin') return scopeProcesses(ctx.host.processes, { keyId, ownOnly: false });
    if (keyId === null)
      throw cyrnelError('forbidden', `the ${role} role needs a stored key to own processes`);
    return scopeProcesses(ctx.host.processes, { keyId, ownOnly: true });
  };
  const app = new Hono<AppEnv>();
  const id = (raw: string) => parseProcessId(raw);
  app.get('/', async (c) =>
    c.json(await processesOf(c).list(parseQuery<ProcessListQuery>(c.req.url, PROCESS_LIST_QUERY))),
  );
  app.post('/', async (c) => {
    const { wait, request } = splitWait(await ctx.body(c));
    if (wait && (request as CreateProcessRequest).autorun === false) {
      throw cyrnelError('invalid_request', 'wait:true needs autorun (an idle process would never finish)', {
        details: [{ path: 'wait', message: 'conflicts with autorun:false' }],
      });
    }
    const record = await processesOf(c).create(request as CreateProcessRequest);
    if (!wait) return c.json(record, 201);
    // Until idle: once it runs, at most its own timeout plus a margin (time queued behind a busy
    // pool does not count; the host's queue backstop bounds that). Without a timeout, only the
    // client leaving (the request signal) ends the wait. A 504 carries `details.processId`.
    const result = await processesOf(c).wait(record.id, {
      marginMs: ctx.waitMarginMs,
      signal: c.req.raw.signal,
    });
    return c.json(result, 201);
  });
  app.get('/:id', async (c) => c.json(await processesOf(c).get(id(c.req.param('id')))));
  app.delete('/:id', async (c) => {
    await processesOf(c).delete(id(c.req.param('id')));
    return c.body(null, 204);
  });
  app.get('/:id/code', async (c) => c.body(await processesOf(c).code(id(c.req.param('id'))), 200, TEXT));
  app.get('/:id/stdout', async (c) => c.body(await processesOf(c).stdout(id(c.req.param('id'))), 200, TEXT));
  app.get('/:id/stderr', async (c) => c.body(await processesOf(c).stderr(id(c.req.param('id'))), 200, TEXT));
  app.get('/:id/output', async (c) => c.json(await processesOf(c).output(id(c.req.param('id')))));
  app.get('/:id/calls', async (c) => c.json({ items: await processesOf(c).calls(id(c.req.param('id'))) }));
  app.get('/:id/events', async (c) => {
    const processId = id(c.req.param('id'));
    // An agent's ownership first (404 for another key's process); the stream subscribes unscoped.
    if (c.get('caller').role !== 'admin') await processesOf(c).get(processId);
    return processEvents(ctx, c, processId);
  });
  app.post('/:id/signals/run', async (c) => {
    const options = (await ctx.body(c, {})) as RunProcessRequest;
    return c.json(await processesOf(c).run(id(c.req.param('id')), options));
  });
  app.post('/:id/signals/kill', async (c) => {
    validateBody(await ctx.body(c, {}), EMPTY_BODY);
    return c.json(await processesOf(c).kill(id(c.req.param('id'))));
  });
  return app;
}
