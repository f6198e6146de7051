/**
 * Tool calls made beside the sandbox, so a call to a stateless adapter does not cross to the host
 * and back (optional for adapters and environments alike).
 *
 * An adapter that keeps no connection state beyond what a service's snapshot describes (the
 * OpenAPI adapter: one HTTP request per call) declares itself {@link PortableAdapter}. An
 * environment whose bindings offer {@link DirectCalls} may then load the host's
 * {@link DirectCallRuntime} next to its sandbox and make such calls itself: the host prepares
 * each service once per catalog revision (snapshot, config, secrets, the tool's input schema),
 * the runtime validates and calls, and the environment reports every call for the audit. Any
 * call the runtime cannot make (an unknown or disabled tool, invalid parameters, an adapter that
 * is not portable) goes through `EnvironmentBindings.invokeTool`, so the gate's answers are the
 * host's own.
 */

/**
 * Where the sandbox side finds a portable adapter: `(await import(moduleUrl))[exportName]` is an
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

/** One call an environment made beside its sandbox, as it reports it for the audit. */
export type DirectCallEvent =
  | {
      readonly kind: 'start';
      /** Unique per execution; the `end` event names it again. */
      readonly id: number;
      readonly serviceId: string;
      readonly toolId: string;
      /** Epoch milliseconds. */
      readonly startedAt: number;
    }
  | {
      readonly kind: 'end';
      readonly id: number;
      readonly ok: boolean;
      /** The failure's code and reason (`upstream_error`, `upstream_failed`...), null on success. */
      readonly errorCode: string | null;
      readonly errorReason: string | null;
      readonly durationMs: number;
    };

/**
 * What a host offers an environment for direct calls, as `EnvironmentBindings.directCalls`.
 *
 * @example
 * ```ts
 * // host side of an environment
 * const stop = bindings.directCalls?.onChange(async (change) => {
 *   await Promise.all(children.map((child) => child.dropServices(change)));
 * });
 * ```
 */
export interface DirectCalls {
  /** `file:` URL of the module exporting `createDirectCallRuntime` ({@link DirectCallRuntimeFactory}). */
  readonly runtimeUrl: string;
  /**
   * What the runtime needs to call `serviceId.toolId` itself (an opaque JSON value for
   * `DirectCallRuntime.route`), or undefined when the call must go through `invokeTool` (unknown,
   * disabled, not portable, unavailable: the gate then answers).
   */
  prepare(eid: number, serviceId: string, toolId: string): Promise<unknown>;
  /** Report a direct call's start and end (fire and forget; an `end` without a `start` is ignored). */
  record(eid: number, event: DirectCallEvent): void;
  /**
   * Subscribe to catalog changes: the host awaits every listener before it acknowledges a change
   * (a disable, new secrets, a deleted service), so a listener resolves once every runtime dropped
   * what it prepared. Answers the unsubscribe function.
   */
  onChange(listener: (change: CatalogChange) => Promise<void>): () => void;
}

/** A catalog change as {@link DirectCalls.onChange} announces it. */
export interface CatalogChange {
  /** The host's catalog revision after the change. */
  readonly revision: string;
  /**
   * Services the host dehydrated since the last change (disabled, deleted, their adapter gone):
   * direct calls to them still running are aborted, as the host's own adapter aborts its calls.
   */
  readonly dropped: readonly string[];
}

/** A call the runtime will make itself. */
export interface DirectCall {
  /** Perform it; rejects with a coded error (`upstream_failed`, `invoke_timeout`, ...). */
  run(signal: AbortSignal): Promise<unknown>;
}

/** The sandbox side of direct calls: one per sandbox process. */
export interface DirectCallRuntime {
  /**
   * The call to make for these arguments, or undefined when it must go through the host.
   * `prepare` asks the host (see {@link DirectCalls.prepare}); the runtime caches its answers
   * until {@link DirectCallRuntime.changed}.
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

/** The export `createDirectCallRuntime` of {@link DirectCalls.runtimeUrl}. */
export type DirectCallRuntimeFactory = () => DirectCallRuntime;
