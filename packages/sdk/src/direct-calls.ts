/**
 * Tool calls that leave through the host's egress gateway without crossing the host's main
 * thread (optional for adapters and environments alike).
 *
 * An adapter that keeps no connection state beyond what a service's snapshot describes (the
 * OpenAPI adapter: one HTTP request per call) declares itself {@link PortableAdapter}. The host
 * then runs its instances (with their config and secrets) in its egress gateway's worker threads
 * only, never in a sandbox process. An environment whose bindings offer {@link DirectCalls} opens
 * one {@link EgressChannel} per sandbox process and sends tool calls straight to the gateway's
 * workers over it (see `@cyrnel/sdk/node` for the frames): the worker validates the parameters,
 * calls, writes the audit and answers the result as JSON text, bounded in bytes, depth and
 * elements. A call the gateway does not make (an unknown or disabled tool, an adapter that is not
 * portable) is answered "through the host": it then goes through `EnvironmentBindings.invokeTool`,
 * so the gate's answers are the host's own.
 */

/**
 * Where the gateway finds a portable adapter: `(await import(moduleUrl))[exportName]` is an
 * object whose `instantiate()` answers a fresh, not yet set-up `AdapterModule` (a
 * `BuiltinModule` or a module definition is one).
 *
 * @example
 * ```ts
 * export const adapter: AdapterModule = {
 *   portable: { moduleUrl: import.meta.url, exportName: 'weatherModule' },
 *   // ...
 * };
 * ```
 */
export interface PortableAdapter {
  /** `file:` URL of an ES module (or CommonJS file) that exports the module object. */
  readonly moduleUrl: string;
  /** The export holding an object with `instantiate()`. */
  readonly exportName: string;
}

/**
 * One sandbox process's way to the egress gateway: the Unix socket paths of the gateway's
 * workers and the token the process authenticates with (hand it over a private channel such as
 * IPC, never argv). The token may call for the executions granted to it, and only while they run.
 *
 * @example
 * ```ts
 * const channel = bindings.directCalls.open();
 * child.send({ t: 'egress', endpoints: channel.endpoints, token: channel.token });
 * await channel.grant(eid); // before the execution starts in that child
 * // ... the execution ends or is killed:
 * channel.revoke(eid); // its calls in flight are aborted
 * channel.close(); // with the child
 * ```
 */
export interface EgressChannel {
  /** Unix domain socket paths, one per gateway worker; a client may use any or all. */
  readonly endpoints: readonly string[];
  /** Random secret of this channel (the first frame on each connection). */
  readonly token: string;
  /** Let this channel call for execution `eid`; resolves once every worker knows (refused for a run that is not running). */
  grant(eid: number): Promise<void>;
  /** Stop calls for `eid`: refused from now on, those in flight aborted. */
  revoke(eid: number): void;
  /** Forget the channel: its connections are closed, its grants revoked. */
  close(): void;
}

/** Options of {@link DirectCalls.open}. */
export interface EgressChannelOptions {
  /** Execution `eid` of this channel is making a tool call through the gateway. */
  readonly onCall?: (eid: number) => void;
}

/**
 * What a host offers an environment for tool calls outside the host's main thread, as
 * `EnvironmentBindings.directCalls`.
 *
 * @example
 * ```ts
 * const channel = bindings.directCalls?.open(); // one per sandbox process
 * ```
 */
export interface DirectCalls {
  /**
   * Open a channel for one sandbox process. `onCall`, when given, hears of each call the gateway
   * is about to send for an execution of this channel (its start recorded): the environment then
   * knows that the execution acted on the world, e.g. so that a crash does not run it again.
   */
  open(options?: EgressChannelOptions): EgressChannel;
}

/** A catalog change, as the host announces it to the egress gateway. */
export interface CatalogChange {
  /** The host's catalog revision after the change. */
  readonly revision: string;
  /**
   * Services the host dehydrated since the last change (disabled, deleted, their adapter gone):
   * calls to them still running are aborted, as the host's own adapter aborts its calls.
   */
  readonly dropped: readonly string[];
}

/** A call the runtime will make itself. */
export interface DirectCall {
  /** Perform it (once); rejects with a coded error (`upstream_failed`, `invoke_timeout`, ...). */
  run(signal: AbortSignal): Promise<unknown>;
  /**
   * Let it go without running it (its start was refused or sent through the host). Until it ran
   * or was let go, the runtime keeps the adapter instance it will run on, whatever changes.
   */
  release(): void;
}

/** The gateway worker's side of portable calls: loads adapters, validates, calls. */
export interface DirectCallRuntime {
  /**
   * The call to make for these arguments, or undefined when it must go through the host's gate.
   * `prepare` asks the host for what the call needs (config, secrets, snapshot, input schema);
   * the runtime caches its answers until {@link DirectCallRuntime.changed}.
   */
  route(
    serviceId: unknown,
    toolId: unknown,
    parameters: unknown,
    prepare: (serviceId: string, toolId: string) => Promise<unknown>,
  ): Promise<DirectCall | undefined>;
  /**
   * The catalog changed: drop every prepared service (and its secrets) before resolving, and abort
   * the running calls of the dropped services.
   */
  changed(change: CatalogChange): Promise<void>;
  /** Tear every adapter instance down. */
  close(): Promise<void>;
}
