import { writeSync } from 'node:fs';
import {
  CATASTROPHIC_ERROR_MARKER,
  type ChildBatch,
  type ChildCallKind,
  type ChildMessage,
  type ChildSettings,
  CRASHED_EXECUTION_MARKER,
  type HostMessage,
} from '../shared/sandbox-protocol';
import { boundCalledNames } from './called-names';
import { createGatewayClient, JsonText } from './gateway-client';
import { createIsolateRunner, type IsolateRunner } from './isolate-runner';

/**
 * A runner whose isolate reports V8 losing control of it (isolated-vm asks the owner to end the
 * process then). The line goes out synchronously (an IPC message would be lost with the process)
 * so the host's crash message can say what happened instead of assuming memory.
 */
function newRunner(
  settings: ChildSettings,
  executionOf: (runner: IsolateRunner) => number | undefined,
): IsolateRunner {
  const runner: IsolateRunner = createIsolateRunner({
    memoryLimitMb: settings.memoryLimitMb || 128,
    onCatastrophicError: (message) => {
      try {
        // Which execution's isolate it was: the host fails that one as the cause.
        const eid = executionOf(runner);
        if (eid !== undefined) writeSync(2, `${CRASHED_EXECUTION_MARKER}${eid}\n`);
        writeSync(2, `${CATASTROPHIC_ERROR_MARKER}${String(message).replace(/\s+/g, ' ').slice(0, 300)}\n`);
      } finally {
        process.abort();
      }
    },
  });
  return runner;
}

/** Messages to the host, batched: one IPC message per event-loop turn. */
interface Outbox {
  /** Send at the end of this turn, keeping a console flood from becoming a message flood. */
  send(message: ChildMessage): void;
  /** Send now, not at the next turn (the answer to a change the host is waiting for). */
  sendNow(message: ChildMessage): void;
}

function createOutbox(): Outbox {
  const outbox: ChildMessage[] = [];
  let flushing = false;
  const flush = () => {
    flushing = false;
    if (outbox.length === 0) return;
    const batch: ChildBatch = { t: 'batch', m: outbox.splice(0) };
    process.send?.(batch);
  };
  return {
    send(message) {
      outbox.push(message);
      if (flushing) return;
      flushing = true;
      setImmediate(flush);
    },
    sendNow(message) {
      outbox.push(message);
      flush();
    },
  };
}

/**
 * Serve executions over this process's IPC channel (the child side of `SandboxProcess`): each
 * execution in an isolate of its own (one warm isolate is kept between executions; the host
 * decides how many run here at once); exits when the host disconnects.
 */
export function serveSandbox(settings: ChildSettings): void {
  const running = new Map<number, IsolateRunner>();
  const executionOf = (runner: IsolateRunner) => {
    for (const [eid, held] of running) if (held === runner) return eid;
    return undefined;
  };
  let spare: IsolateRunner | undefined = newRunner(settings, executionOf);
  const replies = new Map<number, { eid: number; resolve(v: unknown): void; reject(e: unknown): void }>();
  /** Slices of the JSON text of replies still coming (`reply-part`). */
  const replyParts = new Map<number, string[]>();
  const { send } = createOutbox();
  // The spare's next context is made while the process waits for its next execution.
  const warmSoon = () => setImmediate(() => spare?.warm());
  let nextCall = 1;
  /** Aborted when an execution is killed or ends. */
  const endings = new Map<number, AbortController>();

  const hostCall = (eid: number, kind: ChildCallKind, args: readonly unknown[]) =>
    new Promise((resolve, reject) => {
      const id = nextCall++;
      replies.set(id, { eid, resolve, reject });
      send({ t: 'call', eid, id, kind, args });
    });
  // Tool calls go to the egress gateway (which holds the credentials and writes the audit); this
  // process holds nothing secret.
  const tools = createGatewayClient({ hostCall, endingOf: (eid) => endings.get(eid)?.signal });

  async function run(eid: number, job: Extract<HostMessage, { t: 'run' }>['job']) {
    const runner = spare ?? newRunner(settings, executionOf);
    spare = undefined;
    running.set(eid, runner);
    const ending = new AbortController();
    endings.set(eid, ending);
    const result = await runner
      .run(job, {
        call: (kind, args) => {
          const bounded = boundCalledNames(kind, args);
          return kind === 'invoke' ? tools.invoke(eid, bounded) : hostCall(eid, kind, bounded);
        },
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
      replyParts.delete(id);
      waiter.reject(new Error('The execution has ended'));
    }
    send({ t: 'done', eid, ...result });
    // After the result's flush (queued first), not before it.
    if (spare === runner) warmSoon();
  }

  process.on('message', (message: HostMessage) => {
    if (message.t === 'run') void run(message.eid, message.job);
    else if (message.t === 'kill') {
      endings.get(message.eid)?.abort(new Error('The execution was stopped'));
      running.get(message.eid)?.kill();
    } else if (message.t === 'pause') running.get(message.eid)?.pause(message.paused);
    else if (message.t === 'egress') tools.connect(message.endpoints, message.token);
    else if (message.t === 'reply-part') {
      if (!replies.has(message.id)) return;
      const parts = replyParts.get(message.id) ?? [];
      parts.push(message.json);
      replyParts.set(message.id, parts);
    } else if (message.t === 'reply') {
      const waiter = replies.get(message.id);
      const parts = replyParts.get(message.id);
      replyParts.delete(message.id);
      if (!waiter) return;
      replies.delete(message.id);
      if (!message.ok) waiter.reject(message.error);
      else if (typeof message.json !== 'string') waiter.resolve(message.value);
      // Parsed in the isolate, not in this process's heap.
      else waiter.resolve(new JsonText(parts ? parts.join('') + message.json : message.json));
    }
  });
  process.on('disconnect', () => {
    spare?.dispose();
    for (const runner of running.values()) runner.dispose();
    process.exit(0);
  });
  send({ t: 'ready' });
  warmSoon();
}
