import type { ChildMessage } from '../shared/sandbox-protocol';

/**
 * Child messages handled per event-loop turn (a batch of 5,000 calls once stalled the server
 * ≈ 100 ms). Each call's database reads finish in the turn that started them (the store's
 * promises settle in microtasks), so the bound is on work: at 256, 2,000 calls to tools that do
 * not exist (a preparation and a gated call each) held /health for ≈ 300 ms; at 64, well under.
 */
const HANDLED_PER_TURN = 64;

/** The messages of one child, handled in order and paced. */
export interface ChildInbox {
  /** A batch arrived: handled in order, at most 64 messages per event-loop turn. */
  receive(messages: readonly ChildMessage[]): void;
  /** Handle everything still waiting now (the child exited: what it said comes first). */
  drainAll(): void;
}

/**
 * A batch can hold thousands of calls (a `Promise.all` in the sandbox): they are handled in order,
 * `HANDLED_PER_TURN` at a time, so the server's event loop answers other requests between.
 */
export function createChildInbox(handle: (message: ChildMessage) => void): ChildInbox {
  let inbox: ChildMessage[] = [];
  let next = 0;
  let draining = false;
  const drainSome = () => {
    const end = Math.min(inbox.length, next + HANDLED_PER_TURN);
    while (next < end) handle(inbox[next++] as ChildMessage);
    if (next < inbox.length) {
      setImmediate(drainSome);
      return;
    }
    inbox = [];
    next = 0;
    draining = false;
  };
  return {
    receive(messages) {
      for (const m of messages) inbox.push(m);
      if (!draining) {
        draining = true;
        drainSome();
      }
    },
    drainAll() {
      while (next < inbox.length) handle(inbox[next++] as ChildMessage);
      inbox = [];
      next = 0;
    },
  };
}
