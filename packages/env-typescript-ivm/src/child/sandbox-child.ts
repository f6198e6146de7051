/**
 * Entry of a sandbox child process (forked by the pool). It owns the isolate, so a V8 abort
 * (Map/Set/dictionary growth ignores isolated-vm's memoryLimit) kills only this process.
 */
import type { ChildSettings } from '../shared/sandbox-protocol';

// The host owns this process's life: it stops executions with a message, kills with SIGKILL,
// and the child exits when the host disconnects. A SIGINT or SIGTERM sent to the child (a
// signal to a whole process group) must not end an execution that the server's graceful
// shutdown would give its grace period. The handlers go first and the heavy modules
// (isolated-vm, sucrase) are imported after them: static imports would be evaluated before.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => {});

const { serveSandbox } = await import('./sandbox-server');
serveSandbox(JSON.parse(process.argv[2] ?? '{}') as ChildSettings);
