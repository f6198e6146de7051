import { cyrnelError } from '@cyrnel/core';

/** A part of the server loaded by its first use (see {@link lazyPart}). */
export interface LazyPart<T> {
  /** The part, loaded now if it was not; rejects with a 500 `internal` when it cannot be loaded. */
  get(): Promise<T>;
  /** The load begun so far (undefined: never asked for, or its last load failed). */
  loaded(): Promise<T> | undefined;
}

/**
 * A part of the server (an endpoint's modules, a library) loaded by its first use instead of at
 * start, so a server that never uses it never holds it. The load runs once and is shared by
 * every caller; when it fails (a broken install), `onError` is told why, the caller that needed it
 * gets a 500 `internal` naming `what` (the cause stays in the server log, not in the answer), and
 * the next use tries again. The rest of the server is unaffected.
 *
 * @example
 * ```ts
 * const mcp = lazyPart('the MCP endpoint', () => import('@cyrnel/mcp'), (error) => log.error(error));
 * app.all('/mcp', async (c) => (await mcp.get()).handle(c));
 * ```
 */
export function lazyPart<T>(
  what: string,
  load: () => Promise<T>,
  onError?: (error: unknown) => void,
): LazyPart<T> {
  let loading: Promise<T> | undefined;
  return {
    get() {
      loading ??= load().catch((error: unknown) => {
        loading = undefined;
        onError?.(error);
        throw cyrnelError('internal', `${what} could not be loaded (see the server log)`);
      });
      return loading;
    },
    loaded: () => loading,
  };
}
