import { writeSync } from 'node:fs';
import { createIsolateRunner } from './isolate-runner';
import {
  CATASTROPHIC_ERROR_MARKER,
  type ChildBatch,
  type ChildMessage,
  type ChildSettings,
  type HostMessage,
} from './sandbox-protocol';

/**
 * Serve executions over this process's IPC channel (the child side of `SandboxProcess`): one
 * execution at a time in one warm isolate; exits when the host disconnects.
 */
export function serveSandbox(settings: ChildSettings): void {
  // isolated-vm asks the owner to end the process when V8 lost control of an isolate. The line
  // goes out synchronously (an IPC message would be lost with the process) so the host's crash
  // message can say what happened instead of assuming memory.
  const runner = createIsolateRunner({
    memoryLimitMb: settings.memoryLimitMb || 128,
    onCatastrophicError: (message) => {
      try {
        writeSync(2, `${CATASTROPHIC_ERROR_MARKER}${String(message).replace(/\s+/g, ' ').slice(0, 300)}\n`);
      } finally {
        process.abort();
      }
    },
  });
  const replies = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  const outbox: ChildMessage[] = [];
  let flushing = false;
  let nextCall = 1;
  let current: number | undefined;

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
    current = eid;
    const result = await runner
      .run(job, {
        call: (kind, args) =>
          new Promise((resolve, reject) => {
            const id = nextCall++;
            replies.set(id, { resolve, reject });
            send({ t: 'call', eid, id, kind, args });
          }),
        write: (stream, text) => send({ t: stream, eid, text }),
        output: (json) => send({ t: 'output', eid, json }),
      })
      .catch((error: unknown) => ({
        exit: 'failed' as const,
        error: `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
      }));
    current = undefined;
    // The runner has dropped these calls; settling them only frees their closures here.
    for (const [id, waiter] of replies) {
      replies.delete(id);
      waiter.reject(new Error('The execution has ended'));
    }
    send({ t: 'done', eid, ...result });
  }

  process.on('message', (message: HostMessage) => {
    if (message.t === 'run') void run(message.eid, message.job);
    else if (message.t === 'kill' && message.eid === current) runner.kill();
    else if (message.t === 'reply') {
      const waiter = replies.get(message.id);
      if (!waiter) return;
      replies.delete(message.id);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(message.error);
    }
  });
  process.on('disconnect', () => {
    runner.dispose();
    process.exit(0);
  });
  send({ t: 'ready' });
}
