import { writeSync } from 'node:fs';
import type {
  CatalogChange,
  DirectCallEvent,
  DirectCallRuntime,
  DirectCallRuntimeFactory,
} from '@cyrnel/sdk';
import { toCallError } from '../shared/call-error';
import {
  AUDIT_FD,
  type AuditLine,
  CATASTROPHIC_ERROR_MARKER,
  type ChildBatch,
  type ChildCallKind,
  type ChildMessage,
  type ChildSettings,
  type HostMessage,
} from '../shared/sandbox-protocol';
import { createIsolateRunner, type IsolateRunner } from './isolate-runner';

/** How long a direct call runs before its start is written on its own (see `invoke`). */
const START_AUDIT_MS = 5;

/**
 * Serve executions over this process's IPC channel (the child side of `SandboxProcess`): each
 * execution in an isolate of its own (one warm isolate is kept between executions; the host
 * decides how many run here at once); exits when the host disconnects.
 */
export function serveSandbox(settings: ChildSettings): void {
  // isolated-vm asks the owner to end the process when V8 lost control of an isolate. The line
  // goes out synchronously (an IPC message would be lost with the process) so the host's crash
  // message can say what happened instead of assuming memory.
  const newRunner = () =>
    createIsolateRunner({
      memoryLimitMb: settings.memoryLimitMb || 128,
      onCatastrophicError: (message) => {
        try {
          writeSync(2, `${CATASTROPHIC_ERROR_MARKER}${String(message).replace(/\s+/g, ' ').slice(0, 300)}\n`);
        } finally {
          process.abort();
        }
      },
    });
  let spare: IsolateRunner | undefined = newRunner();
  const running = new Map<number, IsolateRunner>();
  const replies = new Map<number, { eid: number; resolve(v: unknown): void; reject(e: unknown): void }>();
  const outbox: ChildMessage[] = [];
  let flushing = false;
  let nextCall = 1;
  let nextDirect = 1;
  /** Aborted when an execution is killed or ends: its direct calls stop with it. */
  const endings = new Map<number, AbortController>();
  /** Audit lines written per execution (its `done` says how many, so the host reads them first). */
  const audited = new Map<number, number>();

  /**
   * Write audit lines now, synchronously, to the audit pipe: a crash right after loses nothing,
   * and it costs one write(2), not an IPC message. A full pipe (the host reads it continuously)
   * is waited out.
   */
  function audit(eid: number, events: readonly DirectCallEvent[]) {
    let text = '';
    for (const event of events) text += `${JSON.stringify({ eid, event } satisfies AuditLine)}\n`;
    const bytes = Buffer.from(text);
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(AUDIT_FD, bytes, offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      }
    }
    audited.set(eid, (audited.get(eid) ?? 0) + events.length);
  }

  // A call's start is written when it has run for START_AUDIT_MS, else together with its end
  // (one write per call): only a call younger than that can be missing after a crash, and only
  // if it had not answered yet.
  const unwritten = new Map<number, { eid: number; event: DirectCallEvent }>();
  let startTimer: NodeJS.Timeout | undefined;
  const writeStarts = () => {
    startTimer = undefined;
    for (const { eid, event } of unwritten.values()) audit(eid, [event]);
    unwritten.clear();
  };

  // One IPC message per event-loop turn keeps a console flood from becoming a message flood.
  function send(message: ChildMessage) {
    outbox.push(message);
    if (flushing) return;
    flushing = true;
    setImmediate(flush);
  }
  function flush() {
    flushing = false;
    if (outbox.length === 0) return;
    const batch: ChildBatch = { t: 'batch', m: outbox.splice(0) };
    process.send?.(batch);
  }
  /** Send now, not at the next turn (the answer to a change the host is waiting for). */
  function sendNow(message: ChildMessage) {
    outbox.push(message);
    flush();
  }

  const hostCall = (eid: number, kind: ChildCallKind, args: readonly unknown[]) =>
    new Promise((resolve, reject) => {
      const id = nextCall++;
      replies.set(id, { eid, resolve, reject });
      send({ t: 'call', eid, id, kind, args });
    });

  // Direct calls (issue 21): the host's runtime, loaded on the first tool call.
  const runtimeUrl = settings.directCallRuntimeUrl;
  let runtime: Promise<DirectCallRuntime | undefined> | undefined;
  const directRuntime = () => {
    runtime ??= import(runtimeUrl as string).then(
      (loaded: { createDirectCallRuntime?: DirectCallRuntimeFactory }) => loaded.createDirectCallRuntime?.(),
      () => undefined,
    );
    return runtime;
  };

  /**
   * A tool call: made here when the runtime routes it (a portable adapter's enabled tool, valid
   * parameters), else through the host's gate. Each direct call is reported at its start and,
   * before the sandbox sees its answer, at its end: a crash right after loses no record.
   */
  async function invoke(eid: number, args: readonly unknown[]): Promise<unknown> {
    if (runtimeUrl === undefined) return hostCall(eid, 'invoke', args);
    const direct = await directRuntime();
    const [serviceId, toolId, parameters] = args;
    const call = await direct?.route(serviceId, toolId, parameters, (s, t) =>
      hostCall(eid, 'prepareDirect', [s, t]),
    );
    const ending = endings.get(eid);
    if (!call || !ending) return hostCall(eid, 'invoke', args);
    const id = nextDirect++;
    const startedAt = Date.now();
    const started = performance.now();
    const start: DirectCallEvent = {
      kind: 'start',
      id,
      serviceId: serviceId as string,
      toolId: toolId as string,
      startedAt,
    };
    unwritten.set(id, { eid, event: start });
    startTimer ??= setTimeout(writeStarts, START_AUDIT_MS);
    // Its end, after its start when that is not written yet: before the sandbox sees the answer.
    const end = (event: DirectCallEvent) => {
      const pending = unwritten.get(id);
      unwritten.delete(id);
      if (unwritten.size === 0 && startTimer) {
        clearTimeout(startTimer);
        startTimer = undefined;
      }
      audit(eid, pending ? [pending.event, event] : [event]);
    };
    try {
      const value = await call.run(ending.signal);
      end({
        kind: 'end',
        id,
        ok: true,
        errorCode: null,
        errorReason: null,
        durationMs: performance.now() - started,
      });
      return value;
    } catch (error) {
      const failure = toCallError(error);
      end({
        kind: 'end',
        id,
        ok: false,
        errorCode: failure.code,
        errorReason: failure.reason,
        durationMs: performance.now() - started,
      });
      throw failure;
    }
  }

  async function catalogChanged(id: number, change: CatalogChange) {
    try {
      await (await runtime)?.changed(change);
    } finally {
      sendNow({ t: 'ack', id });
    }
  }

  async function run(eid: number, job: Extract<HostMessage, { t: 'run' }>['job']) {
    const runner = spare ?? newRunner();
    spare = undefined;
    running.set(eid, runner);
    const ending = new AbortController();
    endings.set(eid, ending);
    const result = await runner
      .run(job, {
        call: (kind, args) => (kind === 'invoke' ? invoke(eid, args) : hostCall(eid, kind, args)),
        write: (stream, text) => send({ t: stream, eid, text }),
        output: (json) => send({ t: 'output', eid, json }),
        activity: (awaiting) => send({ t: 'activity', eid, awaiting }),
      })
      .catch((error: unknown) => ({
        exit: 'failed' as const,
        error: `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
      }));
    running.delete(eid);
    endings.delete(eid);
    ending.abort(new Error('The execution has ended'));
    // One warm isolate is kept for the next execution; those of concurrent ones are released.
    if (spare) runner.dispose();
    else spare = runner;
    // The runner has dropped these calls; settling them only frees their closures here.
    for (const [id, waiter] of replies) {
      if (waiter.eid !== eid) continue;
      replies.delete(id);
      waiter.reject(new Error('The execution has ended'));
    }
    const lines = audited.get(eid);
    audited.delete(eid);
    send({ t: 'done', eid, ...result, ...(lines ? { audited: lines } : {}) });
  }

  process.on('message', (message: HostMessage) => {
    if (message.t === 'run') void run(message.eid, message.job);
    else if (message.t === 'kill') {
      endings.get(message.eid)?.abort(new Error('The execution was stopped'));
      running.get(message.eid)?.kill();
    } else if (message.t === 'catalog') void catalogChanged(message.id, message.change);
    else if (message.t === 'reply') {
      const waiter = replies.get(message.id);
      if (!waiter) return;
      replies.delete(message.id);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(message.error);
    }
  });
  process.on('disconnect', () => {
    spare?.dispose();
    for (const runner of running.values()) runner.dispose();
    process.exit(0);
  });
  send({ t: 'ready' });
}
