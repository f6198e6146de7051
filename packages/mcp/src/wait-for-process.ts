import type { McpBackend } from './mcp-backend';
import { type ProcessView, viewOf } from './process-view';

/** The handler context this package reads: the request's abort signal, progress token and notifier. */
export interface CallContext {
  readonly mcpReq: {
    readonly signal: AbortSignal;
    readonly _meta?: { progressToken?: string | number } & Record<string, unknown>;
    notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  };
  /** The HTTP request of the call, over HTTP: its signal aborts when the client goes away. */
  readonly http?: { readonly req?: Request | undefined } | undefined;
}

/** Options of {@link waitForProcess}. */
export interface WaitForProcessOptions {
  /** How long to wait for the run to end before answering where it is. */
  readonly waitMs: number;
  /** Kill the run when the request is cancelled (`execute_typescript`; `get_process` only stops waiting). */
  readonly killOnCancel: boolean;
  /** Aborted when the client goes away (the HTTP request's signal), besides the request's own. */
  readonly requestSignal?: AbortSignal | undefined;
  /** How often finished tool calls are counted while waiting, for progress. */
  readonly progressPollMs: number;
  /** An approval already reported or decided: the run waiting for it does not end the wait. */
  readonly reportedApproval?: string | undefined;
  /** The server's URL, the base of the admin UI's link to an approval (absent: its path alone). */
  readonly serverUrl?: string | undefined;
}

/**
 * Report `count` finished tool calls whenever it grows: polled every `pollMs` while the run is
 * waited for (one look at a time, so a slow backend is not asked again before it answered).
 */
function watchCalls(backend: McpBackend, id: number, pollMs: number, report: (count: number) => void) {
  let seen = 0;
  let looking = false;
  let stopped = false;
  const seeing = (count: number) => {
    if (count > seen) {
      seen = count;
      report(count);
    }
  };
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    backend.processes.calls(id).then(
      (calls) => {
        looking = false;
        // Once the wait ended, the count of the view answered is the last one reported.
        if (!stopped) seeing(calls.length);
      },
      () => {
        looking = false;
      },
    );
  }, pollMs);
  return {
    seeing,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * Wait for a process and answer its view: once it ends, waits for a person's approval (other
 * than `reportedApproval`) or `waitMs` passed. A progress notification goes out per finished tool
 * call when the request has a progress token; a cancelled request (or a client gone away) ends
 * the wait, and kills the run when `killOnCancel`.
 */
export async function waitForProcess(
  backend: McpBackend,
  id: number,
  ctx: CallContext,
  options: WaitForProcessOptions,
): Promise<ProcessView> {
  const token = ctx.mcpReq._meta?.progressToken;
  // One controller fed by both signals through listeners: `AbortSignal.any` costs far more per
  // request on this path (measured in the bench's MCP row).
  const stop = new AbortController();
  const requestSignal = options.requestSignal ?? ctx.http?.req?.signal;
  const sources = requestSignal ? [ctx.mcpReq.signal, requestSignal] : [ctx.mcpReq.signal];
  const onSource = () => stop.abort();
  for (const source of sources) {
    if (source.aborted) stop.abort();
    else source.addEventListener('abort', onSource, { once: true });
  }
  const signal = stop.signal;
  const onAbort = () => {
    if (options.killOnCancel) killIfLive(backend, id).catch(() => undefined);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const progress =
    token === undefined
      ? undefined
      : watchCalls(backend, id, options.progressPollMs, (count) => {
          ctx.mcpReq
            .notify({
              method: 'notifications/progress',
              params: {
                progressToken: token,
                progress: count,
                message: `${count} tool call${count === 1 ? '' : 's'} finished`,
              },
            })
            .catch(() => undefined);
        });
  try {
    const record = await backend.processes.settle(id, {
      timeoutMs: options.waitMs,
      signal,
      reportedApproval: options.reportedApproval,
    });
    progress?.stop();
    const view = await viewOf(backend, record, options.serverUrl);
    progress?.seeing(view.toolCalls.length);
    return view;
  } finally {
    progress?.stop();
    signal.removeEventListener('abort', onAbort);
    for (const source of sources) source.removeEventListener('abort', onSource);
  }
}

/** Kill a queued or running process; an idle one is left alone (killing it would be a 409). */
async function killIfLive(backend: McpBackend, id: number): Promise<void> {
  const record = await backend.processes.get(id);
  if (record.state !== 'idle') await backend.processes.kill(id);
}
