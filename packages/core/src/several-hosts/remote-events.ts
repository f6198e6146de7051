import { randomUUID } from 'node:crypto';
import type { ModuleLogger } from '@cyrnel/sdk';
import type { ProcessEvent } from '@cyrnel/sdk/api';
import type { LiveProcess } from '../processes/live-process';
import { type HostSignals, MAX_SIGNAL_BYTES } from './host-signals';

/** Characters of stdout or stderr per signal: JSON escapes at most six bytes per character. */
const TEXT_PIECE = 1_000;

/**
 * Replays one run gives at most: each may be megabytes of notifications, and every subscriber on
 * another host asks for one. Followers beyond it get no answer and read the stored results at
 * the end instead.
 */
export const MAX_REPLAYS_PER_RUN = 16;

/** How long a follower waits for the owner's replay before it gives up streaming. */
export const REPLAY_WAIT_MS = 1_000;

/** A message about the events of a run, on the `process` topic. */
export type StreamMessage =
  /** A follower asks the owner of run `follow` to stream it, replaying what happened as `replay`. */
  | { readonly follow: number; readonly replay: string }
  /**
   * Part of the replay `replay` of run `id`: the events up to live number `upTo`; the last
   * part says `last`. `event` is absent when there was nothing to replay.
   */
  | {
      readonly id: number;
      readonly replay: string;
      readonly upTo: number;
      readonly event?: ProcessEvent;
      readonly last?: true;
    }
  /** Live event number `seq` of run `id`; `tooLarge`: an output patch too large to send (read it at the end). */
  | { readonly id: number; readonly seq: number; readonly event?: ProcessEvent; readonly tooLarge?: true };

/** A follower's view of a stream it opened. */
export interface OpenedStream {
  /** Resolves true once the owner's replay arrived (events flow from then on), false after {@link REPLAY_WAIT_MS}. */
  readonly established: Promise<boolean>;
  /**
   * Resolves with the `exit` event once it arrives; it is not handed to the listener, so the
   * follower can hand over a skipped output first.
   */
  readonly exited: Promise<ProcessEvent>;
  /** An output patch was too large to stream: the follower reads the stored output at the end. */
  outputSkipped(): boolean;
  close(): void;
}

/**
 * Live events of runs across hosts: a host following a run of another host asks for
 * it, the owner replays the run's events so far and then sends each new one, numbered, through
 * the signals; stdout and stderr travel in pieces that fit a notification. Nothing is sent for
 * runs nobody follows.
 */
export interface EventStreams {
  /** Handle a stream message heard on the `process` topic; `live` finds this host's runs. */
  handle(message: StreamMessage, live: (id: number) => LiveProcess | undefined): void;
  /** Follow run `id` of another host: `listener` gets its events, replay first. */
  open(id: number, listener: (event: ProcessEvent) => void): OpenedStream;
}

/** Split an event into pieces that each fit a signal (undefined: an output patch too large). */
function pieces(event: ProcessEvent): ProcessEvent[] | undefined {
  if (event.type === 'stdout' || event.type === 'stderr') {
    const { text } = event.data;
    const parts: ProcessEvent[] = [];
    for (let at = 0; at < text.length; at += TEXT_PIECE)
      parts.push({ type: event.type, data: { text: text.slice(at, at + TEXT_PIECE) } });
    return parts;
  }
  return Buffer.byteLength(JSON.stringify(event)) > MAX_SIGNAL_BYTES - 200 ? undefined : [event];
}

/** Create the event streams of one host over its signals. */
export function createEventStreams(signals: HostSignals, logger: ModuleLogger): EventStreams {
  /** Runs of this host being streamed: the number of the last live event, and the send queue. */
  const served = new WeakMap<
    LiveProcess,
    { seq: number; queue: StreamMessage[]; sending: boolean; replays: number }
  >();
  /** Streams this host follows, by run id. */
  const following = new Map<number, Set<(message: StreamMessage) => void>>();

  const send = (stream: { queue: StreamMessage[]; sending: boolean }, message: StreamMessage) => {
    // Text waiting to be sent takes the next text of its stream along (as its higher number):
    // chatty code costs a notification per piece, not per line.
    const tail = stream.queue.at(-1);
    if (
      tail &&
      'seq' in tail &&
      'seq' in message &&
      tail.event &&
      message.event &&
      (tail.event.type === 'stdout' || tail.event.type === 'stderr') &&
      tail.event.type === message.event.type &&
      tail.event.data.text.length + message.event.data.text.length <= TEXT_PIECE
    ) {
      stream.queue[stream.queue.length - 1] = {
        id: tail.id,
        seq: message.seq,
        event: { type: tail.event.type, data: { text: tail.event.data.text + message.event.data.text } },
      };
      return;
    }
    stream.queue.push(message);
    if (stream.sending) return;
    stream.sending = true;
    // One notification at a time per run: notifications of one connection arrive in order.
    void (async () => {
      for (let next = stream.queue.shift(); next; next = stream.queue.shift())
        await signals.publish('process', JSON.stringify(next));
    })()
      .catch((error: unknown) => logger.debug('process: streaming an event failed', { error: String(error) }))
      .finally(() => {
        stream.sending = false;
      });
  };

  const serve = (run: LiveProcess, replay: string) => {
    const id = run.record.id;
    let stream = served.get(run);
    if (!stream) {
      const created = { seq: 0, queue: [] as StreamMessage[], sending: false, replays: 0 };
      stream = created;
      served.set(run, created);
      run.listeners.add((event) => {
        const parts = pieces(event);
        if (!parts) send(created, { id, seq: ++created.seq, tooLarge: true });
        else for (const part of parts) send(created, { id, seq: ++created.seq, event: part });
      });
    }
    if (++stream.replays > MAX_REPLAYS_PER_RUN) return;
    const upTo = stream.seq;
    const parts: ProcessEvent[] = [];
    for (const event of run.events) {
      const split = pieces(event);
      if (split) parts.push(...split);
    }
    if (parts.length === 0) send(stream, { id, replay, upTo, last: true });
    parts.forEach((event, index) => {
      send(stream, {
        id,
        replay,
        upTo,
        event,
        ...(index === parts.length - 1 ? { last: true as const } : {}),
      });
    });
  };

  return {
    handle(message, live) {
      if ('follow' in message) {
        const run = live(message.follow);
        if (run && !run.finished && typeof message.replay === 'string') serve(run, message.replay);
        return;
      }
      for (const handler of following.get(message.id) ?? []) handler(message);
    },

    open(id, listener) {
      const replay = randomUUID();
      let replayed = false;
      let upTo = 0;
      let last = 0;
      let skipped = false;
      const early: { seq: number; event?: ProcessEvent; tooLarge?: true }[] = [];
      let establish!: (ok: boolean) => void;
      const established = new Promise<boolean>((resolve) => {
        establish = resolve;
      });
      let exit!: (event: ProcessEvent) => void;
      const exited = new Promise<ProcessEvent>((resolve) => {
        exit = resolve;
      });
      const deliver = (event: ProcessEvent | undefined, tooLarge?: true) => {
        if (tooLarge) skipped = true;
        if (!event) return;
        if (event.type === 'exit') exit(event);
        else listener(event);
      };
      const handler = (message: StreamMessage) => {
        if ('replay' in message && 'upTo' in message) {
          if (message.replay !== replay || replayed) return;
          deliver(message.event);
          if (!message.last) return;
          replayed = true;
          upTo = message.upTo;
          last = upTo;
          for (const item of early.sort((a, b) => a.seq - b.seq)) {
            if (item.seq <= last) continue;
            last = item.seq;
            deliver(item.event, item.tooLarge);
          }
          early.length = 0;
          establish(true);
          return;
        }
        if (!('seq' in message)) return;
        if (!replayed) {
          early.push(message);
          return;
        }
        if (message.seq <= last) return;
        last = message.seq;
        deliver(message.event, message.tooLarge);
      };
      const set = following.get(id) ?? new Set();
      set.add(handler);
      following.set(id, set);
      const timer = setTimeout(() => establish(false), REPLAY_WAIT_MS);
      timer.unref();
      void established.then(() => clearTimeout(timer));
      signals
        .publish('process', JSON.stringify({ follow: id, replay } satisfies StreamMessage))
        .catch((error: unknown) => {
          logger.debug('process: asking for a stream failed', { id, error: String(error) });
          establish(false);
        });
      return {
        established,
        exited,
        outputSkipped: () => skipped,
        close() {
          clearTimeout(timer);
          establish(false);
          set.delete(handler);
          if (set.size === 0 && following.get(id) === set) following.delete(id);
        },
      };
    },
  };
}

/** A `process` signal's stream message, or undefined when it is none (or malformed). */
export function parseStreamMessage(value: unknown): StreamMessage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as Record<string, unknown>;
  if (Number.isSafeInteger(message.follow) && typeof message.replay === 'string')
    return { follow: message.follow as number, replay: message.replay };
  if (!Number.isSafeInteger(message.id)) return undefined;
  if (typeof message.replay === 'string' && Number.isSafeInteger(message.upTo))
    return message as StreamMessage;
  if (Number.isSafeInteger(message.seq)) return message as StreamMessage;
  return undefined;
}
