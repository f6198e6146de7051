import type { KeyRing } from '@cyrnel/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';

/** Options of {@link createKeyStreams}. */
export interface KeyStreamsOptions {
  /** The stored keys; without them no stream belongs to a stored key and none is tracked. */
  readonly keys?: KeyRing;
  /**
   * How often the keys holding open streams are looked up again, so a key deleted on another host
   * sharing the database closes its streams here too. Default 5000.
   */
  readonly checkMs?: number;
}

/**
 * The open streaming answers (Server-Sent Events: `/processes/:id/events`, the `/mcp` stream) of
 * each stored key, so that deleting the key closes them: at once on the host that deleted it
 * ({@link KeyStreams.revoke}), and within `checkMs` on the others, which look the keys of their
 * open streams up again while any is open.
 *
 * @example
 * ```ts
 * const streams = createKeyStreams({ keys });
 * app.use(streams.middleware); // after the bearer check has set the caller
 * await keys.delete(id);
 * streams.revoke(id); // its open streams end now
 * ```
 */
export interface KeyStreams {
  /** Track the event-stream answers of requests made with a stored key. */
  readonly middleware: MiddlewareHandler<AppEnv>;
  /** Close every open stream of key `keyId`; answers how many. */
  revoke(keyId: string): number;
  /** Streams open now, per key id: for tests and logs. */
  open(): ReadonlyMap<string, number>;
}

/** One key's open streams, and the presented key to look up again. */
interface KeyEntry {
  readonly token: string;
  readonly ends: Set<() => void>;
}

/** Create the registry of streams by key. */
export function createKeyStreams(options: KeyStreamsOptions = {}): KeyStreams {
  const { keys } = options;
  const checkMs = options.checkMs ?? 5000;
  const byKey = new Map<string, KeyEntry>();
  let timer: NodeJS.Timeout | undefined;
  let checking = false;

  const revoke = (keyId: string): number => {
    const entry = byKey.get(keyId);
    if (!entry) return 0;
    byKey.delete(keyId);
    const ends = [...entry.ends];
    for (const end of ends) end();
    return ends.length;
  };

  /** Look each key with open streams up again; close the streams of those that are gone. */
  const check = async (): Promise<void> => {
    if (checking || !keys) return;
    checking = true;
    try {
      for (const [keyId, entry] of [...byKey]) {
        const key = await keys.authenticate(entry.token).catch(() => 'unknown' as const);
        // A failed lookup (the database out of reach) is no proof of a deletion.
        if (key === undefined || (key !== 'unknown' && key.id !== keyId)) revoke(keyId);
      }
    } finally {
      checking = false;
    }
  };

  const track = (keyId: string, token: string, end: () => void): (() => void) => {
    const entry = byKey.get(keyId) ?? { token, ends: new Set() };
    entry.ends.add(end);
    byKey.set(keyId, entry);
    if (!timer && keys) {
      timer = setInterval(() => void check(), checkMs);
      timer.unref();
    }
    return () => {
      entry.ends.delete(end);
      if (entry.ends.size === 0 && byKey.get(keyId) === entry) byKey.delete(keyId);
      if (byKey.size === 0 && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  };

  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    const caller = c.get('caller');
    const keyId = caller?.keyId;
    const body = c.res.body;
    // A caller signed in with an OAuth token holds no stored key to delete.
    if (
      !keyId ||
      caller?.oauthSubject !== undefined ||
      !body ||
      !(c.res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    )
      return;
    const token = /^Bearer ([^\s]+)$/i.exec((c.req.header('authorization') ?? '').trim())?.[1] ?? '';
    const reader = body.getReader();
    let closed = false;
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    const finish = (): void => {
      if (closed) return;
      closed = true;
      untrack();
    };
    // Revoked: the client sees the stream end, and the route's own stream is cancelled (its
    // subscription dropped) as when a client leaves.
    const end = (): void => {
      if (closed) return;
      finish();
      try {
        controller?.close();
      } catch {
        // Already closed or errored.
      }
      reader.cancel('key revoked').catch(() => undefined);
    };
    const untrack = track(keyId, token, end);
    const wrapped = new ReadableStream<Uint8Array>({
      start(ctrl) {
        controller = ctrl;
      },
      async pull(ctrl) {
        try {
          const { done, value } = await reader.read();
          if (closed) return;
          if (done) {
            finish();
            ctrl.close();
          } else ctrl.enqueue(value);
        } catch (error) {
          if (closed) return;
          finish();
          ctrl.error(error);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    });
    c.res = new Response(wrapped, c.res);
  };

  return {
    middleware,
    revoke,
    open: () => new Map([...byKey].map(([id, entry]) => [id, entry.ends.size])),
  };
}
