import { ValidationError } from '@cyrnel/core';
import { EXECUTION_EXIT_STATES, PROCESS_STATES } from '@cyrnel/sdk';
import type { CreateProcessRequest, ProcessListQuery, RunProcessRequest } from '@cyrnel/sdk/api';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { validateBody } from '../validation/body-schema';
import { parseProcessId } from '../validation/params';
import { PAGE_QUERY, parseQuery } from '../validation/query';
import { processEvents } from './process-events';
import type { RouteContext } from './route-context';

const LIST_QUERY = {
  ...PAGE_QUERY,
  state: { type: 'enum', values: PROCESS_STATES },
  exitState: { type: 'enum', values: EXECUTION_EXIT_STATES },
  ref: { type: 'string' },
} as const;

const CREATE_BODY = {
  code: { type: 'string', required: true },
  ref: { type: 'string' },
  timeoutMs: { type: 'positiveInteger', nullable: true },
  envConfig: { type: 'object' },
  autorun: { type: 'boolean' },
  wait: { type: 'boolean' },
} as const;

const RUN_BODY = { force: { type: 'boolean' } } as const;

const TEXT = { 'content-type': 'text/plain; charset=utf-8' } as const;

/** `/processes` routes (SPEC §6). */
export function processRoutes(ctx: RouteContext): Hono<AppEnv> {
  const { host } = ctx;
  const app = new Hono<AppEnv>();
  const id = (raw: string) => parseProcessId(raw);
  app.get('/', async (c) =>
    c.json(await host.processes.list(parseQuery<ProcessListQuery>(c.req.url, LIST_QUERY))),
  );
  app.post('/', async (c) => {
    const { wait, ...request } = validateBody<CreateProcessRequest>(await ctx.body(c), CREATE_BODY);
    if (wait === true && request.autorun === false) {
      throw new ValidationError('wait:true needs autorun (an idle process would never finish)', [
        { path: 'wait', message: 'conflicts with autorun:false' },
      ]);
    }
    const record = await host.processes.create(request);
    if (wait !== true) return c.json(record, 201);
    // Until idle: once it runs, at most its own timeout plus a margin (time queued behind a busy
    // pool does not count; the host's queue backstop bounds that). Without a timeout, only the
    // client leaving (the request signal) ends the wait. A 504 carries `details.processId`.
    const result = await host.processes.wait(record.id, {
      marginMs: ctx.waitMarginMs,
      signal: c.req.raw.signal,
    });
    return c.json(result, 201);
  });
  app.get('/:id', async (c) => c.json(await host.processes.get(id(c.req.param('id')))));
  app.delete('/:id', async (c) => {
    await host.processes.delete(id(c.req.param('id')));
    return c.body(null, 204);
  });
  app.get('/:id/code', async (c) => c.body(await host.processes.code(id(c.req.param('id'))), 200, TEXT));
  app.get('/:id/stdout', async (c) => c.body(await host.processes.stdout(id(c.req.param('id'))), 200, TEXT));
  app.get('/:id/stderr', async (c) => c.body(await host.processes.stderr(id(c.req.param('id'))), 200, TEXT));
  app.get('/:id/output', async (c) => c.json(await host.processes.output(id(c.req.param('id')))));
  app.get('/:id/calls', async (c) => c.json({ items: await host.processes.calls(id(c.req.param('id'))) }));
  app.get('/:id/events', async (c) => processEvents(ctx, c, id(c.req.param('id'))));
  app.post('/:id/signals/run', async (c) => {
    const { force } = validateBody<RunProcessRequest>(await ctx.body(c, {}), RUN_BODY);
    return c.json(await host.processes.run(id(c.req.param('id')), force === undefined ? {} : { force }));
  });
  app.post('/:id/signals/kill', async (c) => {
    validateBody(await ctx.body(c, {}), {});
    return c.json(await host.processes.kill(id(c.req.param('id'))));
  });
  return app;
}
