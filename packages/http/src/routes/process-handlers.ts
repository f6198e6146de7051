import { cyrnelError, validateBody } from '@cyrnel/core';
import type { CreateProcessRequest, PROCESS_ROUTES } from '@cyrnel/sdk/api';
import { callerProcesses } from '../caller-processes';
import { processEvents } from './process-events';
import type { RouteContext } from './route-context';
import { hostValidates, type RouteHandlers } from './route-handler';

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

/** The handlers of `/processes`: each acts on the processes its caller may see ({@link callerProcesses}). */
export function processHandlers(ctx: RouteContext): RouteHandlers<typeof PROCESS_ROUTES> {
  const { host } = ctx;
  const of = (caller: Parameters<typeof callerProcesses>[1]) => callerProcesses(host.processes, caller);
  return {
    list: async ({ caller, query }) => of(caller).list(query),
    create: hostValidates(async ({ caller, body }, c) => {
      const { wait, request } = splitWait(body);
      // Anything but an object goes on whole, for the host to refuse with a 400.
      const fields = (typeof request === 'object' && request !== null ? request : {}) as CreateProcessRequest;
      if (wait && fields.autorun === false) {
        throw cyrnelError('invalid_request', 'wait:true needs autorun (an idle process would never finish)', {
          details: [{ path: 'wait', message: 'conflicts with autorun:false' }],
        });
      }
      if (wait && fields.plan === true) {
        throw cyrnelError(
          'invalid_request',
          'wait:true cannot be combined with plan:true (a plan never runs)',
          {
            details: [{ path: 'wait', message: 'conflicts with plan:true' }],
          },
        );
      }
      if (wait && fields.check === true) {
        throw cyrnelError(
          'invalid_request',
          'wait:true cannot be combined with check:true (a check never runs)',
          {
            details: [{ path: 'wait', message: 'conflicts with check:true' }],
          },
        );
      }
      const processes = of(caller);
      // A plan runs nothing: its answer says what the code can call, for a person to approve once.
      if (fields.plan === true) return processes.plan(request as CreateProcessRequest);
      // Nor does a check: its answer is the code's type errors.
      if (fields.check === true) return processes.check(request as CreateProcessRequest);
      const record = await processes.create(request as CreateProcessRequest);
      if (!wait) return record;
      // Until idle, or until the run waits for a person's approval (then the record says so: state
      // `waiting`, `approvalId`). Once it runs, at most its own timeout plus a margin (time queued
      // behind a busy pool does not count; the host's queue backstop bounds that). Without a
      // timeout, only the client leaving (the request signal) ends the wait. A 504 carries
      // `details.processId`.
      return processes.wait(record.id, { marginMs: ctx.waitMarginMs, signal: c.req.raw.signal });
    }),
    get: async ({ caller, params }) => of(caller).get(params.id),
    delete: async ({ caller, params }) => of(caller).delete(params.id),
    code: async ({ caller, params }) => of(caller).code(params.id),
    stdout: async ({ caller, params }) => of(caller).stdout(params.id),
    stderr: async ({ caller, params }) => of(caller).stderr(params.id),
    output: async ({ caller, params }) => of(caller).output(params.id),
    calls: async ({ caller, params }) => ({ items: await of(caller).calls(params.id) }),
    events: async ({ caller, params }, c) => {
      // An agent's or approver's ownership first (404 for another key's process); the stream
      // subscribes unscoped.
      if (caller.role !== 'admin') await of(caller).get(params.id);
      return processEvents(ctx, c, params.id);
    },
    start: hostValidates(async ({ caller, params, body }) => of(caller).run(params.id, body)),
    kill: async ({ caller, params }) => of(caller).kill(params.id),
  };
}
