import { writeSync } from 'node:fs';
import { createIsolateRunner, type IsolateRunner } from './isolate-runner';
import {
  CATASTROPHIC_ERROR_MARKER,
  type ChildBatch,
  type ChildMessage,
  type ChildSettings,
  type HostMessage,
} from './sandbox-protocol';

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

  // One IPC message per event-loop turn keeps a console flood from becoming a message flood.
  function send(message: ChildMessage) {
    outbox.push(message);
    if (flushing) return;
    flushing = true;
    setImmediate(() => {
      flushing = false;
      const batch: ChildBatch = { t: 'batch', m: outbox.splice(0) };
      process.send?.(batch);
    });
  }

  async function run(eid: number, job: Extract<HostMessage, { t: 'run' }>['job']) {
    const runner = spare ?? newRunner();
    spare = undefined;
    running.set(eid, runner);
    const result = await runner
      .run(job, {
        call: (kind, args) =>
          new Promise((resolve, reject) => {
            const id = nextCall++;
            replies.set(id, { eid, resolve, reject });
            send({ t: 'call', eid, id, kind, args });
          }),
        write: (stream, text) => send({ t: stream, eid, text }),
        output: (json) => send({ t: 'output', eid, json }),
        activity: (awaiting) => send({ t: 'activity', eid, awaiting }),
      })
      .catch((error: unknown) => ({
        exit: 'failed' as const,
        error: `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
      }));
    running.delete(eid);
    // One warm isolate is kept for the next execution; those of concurrent ones are released.
    if (spare) runner.dispose();
    else spare = runner;
    // The runner has dropped these calls; settling them only frees their closures here.
    for (const [id, waiter] of replies) {
      if (waiter.eid !== eid) continue;
      replies.delete(id);
      waiter.reject(new Error('The execution has ended'));
    }
    send({ t: 'done', eid, ...result });
  }

  process.on('message', (message: HostMessage) => {
    if (message.t === 'run') void run(message.eid, message.job);
    else if (message.t === 'kill') running.get(message.eid)?.kill();
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
