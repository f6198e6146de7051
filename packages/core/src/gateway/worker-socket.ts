import { rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { createEgressFrameReader, type EgressRequest, encodeEgressFrame } from '@cyrnel/sdk/node';
import { cyrnelError } from '../errors';
import type { GrantAnswer, WireError } from './gateway-protocol';
import { toWireError } from './wire-error';

/** What one call answers (see `egress-worker.ts`). */
type Outcome = { json: string } | { error: WireError } | { host: true; unprepared?: true };

/** Options of {@link serveEgressSocket}. */
export interface EgressSocketOptions {
  readonly socketPath: string;
  /** Largest request frame a connection may send; past it the connection is closed. */
  readonly maxFrameBytes: number;
  /**
   * Ask the main thread whether `token` may call for `eid` (a call for an execution this socket
   * was not told about). A `yes` arrives as a {@link EgressSocket.grant} before this resolves.
   */
  readonly askGrant: (token: string, eid: number) => Promise<GrantAnswer>;
  /** Make one granted call; `stillGranted` tells whether it was revoked meanwhile. */
  readonly perform: (
    eid: number,
    request: EgressRequest,
    signal: AbortSignal,
    stillGranted: () => boolean,
  ) => Promise<Outcome>;
  readonly onListening: () => void;
}

/** The socket side of a worker: who may call for which execution, and the connections. */
export interface EgressSocket {
  /** The main thread answered that `token` may call for `eid` (kept until revoked). */
  grant(token: string, eid: number): void;
  /** Revoke one execution of a token (null: all of them, and close its connections). */
  revoke(token: string, eid: number | null): void;
  close(): Promise<void>;
}

/** Concurrent calls one connection may have in flight; more are refused. */
const MAX_IN_FLIGHT = 10_000;

function refusal(reason: 'unauthorized' | 'invalid_request' | 'too_many_calls', message: string) {
  return toWireError(cyrnelError(reason, message));
}

/**
 * Serve the worker's Unix socket: a connection's first frame is `{ token }`; every later frame is
 * an `EgressRequest`, made only for an execution granted to that token and answered in a frame
 * of its own (the result's JSON text as the body). A revoke aborts the calls in flight.
 * Grants are learnt on demand: the first call for an execution asks the main thread (which then
 * sends this worker that execution's revoke), so a process that makes no direct call costs the
 * workers nothing.
 */
export function serveEgressSocket(options: EgressSocketOptions): EgressSocket {
  const grants = new Map<string, Set<number>>();
  /** Calls in flight by `token\0eid`. */
  const inFlight = new Map<string, Set<AbortController>>();
  const connections = new Map<Socket, string | undefined>();
  const granted = (token: string | undefined, eid: number) =>
    token !== undefined && grants.get(token)?.has(eid) === true;

  const handle = async (socket: Socket, token: string, header: unknown, calls: { n: number }) => {
    const request = header as Partial<EgressRequest> | null;
    const id = typeof request?.id === 'number' ? request.id : -1;
    const send = (answer: object, body?: string) => {
      if (!socket.destroyed) socket.write(encodeEgressFrame({ id, ...answer }, body));
    };
    const { eid, serviceId, toolId, parameters } = request ?? {};
    if (
      typeof eid !== 'number' ||
      typeof serviceId !== 'string' ||
      typeof toolId !== 'string' ||
      typeof parameters !== 'object' ||
      parameters === null ||
      Array.isArray(parameters)
    )
      return send({ ok: false, error: refusal('invalid_request', 'not an egress request') });
    if (!granted(token, eid)) {
      // Not told yet: ask. A `yes` is recorded (grant) before the answer resolves, and a revoke
      // sent after it is handled after it, so checking again here sees whichever came last.
      if ((await options.askGrant(token, eid)) === 'closed') {
        // No such channel (a guessed token, or one closed): refused, and the connection ends.
        send({ ok: false, error: refusal('unauthorized', 'no such egress channel') });
        return void socket.end();
      }
    }
    if (!granted(token, eid))
      return send({
        ok: false,
        error: refusal('unauthorized', `execution ${eid} is not granted to this channel`),
      });
    if (calls.n >= MAX_IN_FLIGHT)
      return send({
        ok: false,
        error: refusal('too_many_calls', 'too many calls in flight on this connection'),
      });
    const key = `${token}\u0000${eid}`;
    const controller = new AbortController();
    let set = inFlight.get(key);
    if (!set) {
      set = new Set();
      inFlight.set(key, set);
    }
    set.add(controller);
    calls.n++;
    try {
      const outcome = await options.perform(
        eid,
        request as EgressRequest,
        controller.signal,
        () => granted(token, eid) && !controller.signal.aborted,
      );
      if ('json' in outcome) send({ ok: true }, outcome.json);
      else if ('host' in outcome)
        send(outcome.unprepared ? { host: true, unprepared: true } : { host: true });
      else send({ ok: false, error: outcome.error });
    } catch (error) {
      send({ ok: false, error: toWireError(error) });
    } finally {
      calls.n--;
      set.delete(controller);
      if (set.size === 0) inFlight.delete(key);
    }
  };

  const server = createServer((socket) => {
    connections.set(socket, undefined);
    const calls = { n: 0 };
    const read = createEgressFrameReader(
      options.maxFrameBytes,
      (header) => {
        const token = connections.get(socket);
        if (token === undefined) {
          const offered = (header as { token?: unknown } | null)?.token;
          if (typeof offered !== 'string') return void socket.destroy();
          connections.set(socket, offered);
          return;
        }
        void handle(socket, token, header, calls);
      },
      () => socket.destroy(),
    );
    socket.on('data', read);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => connections.delete(socket));
  });
  rmSync(options.socketPath, { force: true });
  server.listen(options.socketPath, options.onListening);

  const abortAll = (key: string, reason: unknown) => {
    for (const controller of inFlight.get(key) ?? []) controller.abort(reason);
  };
  return {
    grant(token, eid) {
      let set = grants.get(token);
      if (!set) {
        set = new Set();
        grants.set(token, set);
      }
      set.add(eid);
    },
    revoke(token, eid) {
      const stopped = cyrnelError('process_killed', 'the execution ended or was stopped during the call');
      if (eid !== null) {
        grants.get(token)?.delete(eid);
        abortAll(`${token}\u0000${eid}`, stopped);
        return;
      }
      for (const granted of grants.get(token) ?? []) abortAll(`${token}\u0000${granted}`, stopped);
      grants.delete(token);
      for (const [socket, owner] of connections) if (owner === token) socket.destroy();
    },
    close() {
      for (const socket of connections.keys()) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
