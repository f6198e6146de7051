import { connect, type Socket } from 'node:net';
import { createEgressFrameReader, type EgressAnswer, encodeEgressFrame } from '@cyrnel/sdk/node';
import { type CallError, callError } from '../shared/call-error';
import type { ChildCallKind } from '../shared/sandbox-protocol';

/**
 * A tool's answer as JSON text: handed into the isolate as a string and parsed there, so the
 * sandbox process never builds the answer's object tree on its own heap.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Options of {@link createGatewayClient}. */
export interface GatewayClientOptions {
  /** Ask the host over IPC (its gate answers the calls the gateway does not make). */
  readonly hostCall: (eid: number, kind: ChildCallKind, args: readonly unknown[]) => Promise<unknown>;
  /** Aborted when execution `eid` is killed or ends; undefined once it ended. */
  readonly endingOf: (eid: number) => AbortSignal | undefined;
}

/** The tool calls of a sandbox child: to the egress gateway's workers, else through the host. */
export interface GatewayClient {
  /** The host's channel (endpoints and token), received over IPC; before it, calls go to the host. */
  connect(endpoints: readonly string[], token: string): void;
  /**
   * A tool call: sent to a gateway worker, which answers JSON text ({@link JsonText}), a coded
   * error, or "through the host" (then the host's gate makes it).
   */
  invoke(eid: number, args: readonly unknown[]): Promise<unknown>;
}

/** Tools one execution keeps sending to the host directly (past it, it starts over). */
const MAX_HOST_ONLY = 1000;

/** Largest answer frame read from a worker (the worker bounds answers far below). */
const MAX_ANSWER_FRAME = 1 << 30;

interface Waiter {
  readonly eid: number;
  readonly args: readonly unknown[];
  /** The execution's ending signal and the call's tool key (see `hostOnly`). */
  readonly ending: AbortSignal;
  readonly key: string;
  resolve(value: unknown): void;
  reject(error: CallError): void;
}

/** One connection to one worker; pending calls fail when it closes, the next call reconnects. */
interface Connection {
  readonly socket: Socket;
  readonly pending: Map<number, Waiter>;
}

/** Create the child's client of the egress gateway. */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  let endpoints: readonly string[] = [];
  let token = '';
  const connections = new Map<string, Connection>();
  let nextId = 1;
  // Calls in flight per execution. A call goes to the worker of its execution (by eid), or the
  // next ones while earlier calls are in flight: a sequential chain meets one worker, which keeps
  // the host's decisions for it (see the egress gateway's call journal); a burst still spreads.
  const inFlight = new Map<number, number>();
  // The tools (with the connection named) the gateway said it does not make until the catalog
  // changes (`unprepared`: an adapter that is not portable, such as mcp): the execution's later
  // calls of them go to the host's gate at once, which is where the gateway would send them. Kept
  // per execution (by its ending signal), so a change is seen by the next execution at the latest;
  // the gate makes a portable adapter's calls in the gateway's workers too.
  const hostOnly = new WeakMap<AbortSignal, Set<string>>();
  const remember = (ending: AbortSignal, key: string) => {
    let tools = hostOnly.get(ending);
    if (!tools || tools.size >= MAX_HOST_ONLY) {
      tools = new Set();
      hostOnly.set(ending, tools);
    }
    tools.add(key);
  };

  const open = (path: string): Connection => {
    const existing = connections.get(path);
    if (existing && !existing.socket.destroyed) return existing;
    const socket = connect(path);
    const connection: Connection = { socket, pending: new Map() };
    connections.set(path, connection);
    socket.write(encodeEgressFrame({ token }));
    const fail = () => {
      if (connections.get(path) === connection) connections.delete(path);
      const lost = callError(
        'upstream_crashed',
        'the connection to the egress gateway was lost during the call',
      );
      for (const waiter of connection.pending.values()) waiter.reject(lost);
      connection.pending.clear();
      socket.destroy();
    };
    socket.on(
      'data',
      createEgressFrameReader(
        MAX_ANSWER_FRAME,
        (header, body) => {
          const answer = header as EgressAnswer;
          const waiter = connection.pending.get(answer?.id);
          if (!waiter) return;
          connection.pending.delete(answer.id);
          if ('host' in answer) {
            if (answer.unprepared === true) remember(waiter.ending, waiter.key);
            waiter.resolve(options.hostCall(waiter.eid, 'invoke', waiter.args));
          } else if (answer.ok) waiter.resolve(new JsonText(body.toString('utf8')));
          else waiter.reject(answer.error);
        },
        fail,
      ),
    );
    socket.on('error', fail);
    socket.on('close', fail);
    return connection;
  };

  return {
    connect(paths, secret) {
      endpoints = [...paths];
      token = secret;
    },
    invoke(eid, args) {
      const [serviceId, toolId, parameters, named] = args;
      const ending = options.endingOf(eid);
      // Malformed calls get the gate's own answers.
      if (
        endpoints.length === 0 ||
        !ending ||
        typeof serviceId !== 'string' ||
        typeof toolId !== 'string' ||
        typeof parameters !== 'object' ||
        parameters === null ||
        Array.isArray(parameters) ||
        (named !== undefined && typeof named !== 'string')
      )
        return options.hostCall(eid, 'invoke', args);
      const key =
        named === undefined ? `${serviceId}\u0000${toolId}` : `${serviceId}\u0000${toolId}\u0000${named}`;
      if (hostOnly.get(ending)?.has(key)) return options.hostCall(eid, 'invoke', args);
      const busy = inFlight.get(eid) ?? 0;
      const connection = open(endpoints[(eid + busy) % endpoints.length] as string);
      inFlight.set(eid, busy + 1);
      const done = () => {
        const left = (inFlight.get(eid) ?? 1) - 1;
        if (left > 0) inFlight.set(eid, left);
        else inFlight.delete(eid);
      };
      const id = nextId++;
      return new Promise((resolve, reject) => {
        connection.pending.set(id, {
          eid,
          args,
          ending,
          key,
          resolve: (value) => {
            done();
            resolve(value);
          },
          reject: (error) => {
            done();
            reject(error);
          },
        });
        // A killed execution's calls are aborted by the gateway (the host revokes its grant), so
        // their answers still come and free these entries.
        connection.socket.write(
          encodeEgressFrame(
            named === undefined
              ? { id, eid, serviceId, toolId, parameters }
              : { id, eid, serviceId, toolId, parameters, connection: named },
          ),
        );
      });
    },
  };
}
