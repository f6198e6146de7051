import type { RouteAnswer } from './gateway-protocol';

/** Longest connection name (the SDK's `MAX_CONNECTION_NAME_LENGTH`): longer ones are never kept. */
const MAX_KEPT_NAME = 64;
/** Most routes kept per execution; past it they are asked again. */
const MAX_KEPT_ROUTES = 1000;

/** A gateway worker's routes: which connection's adapter state each execution's calls use. */
export interface RouteCache {
  /** The route of a call of execution `eid` to `serviceId`, naming `connection` (hostile). */
  of(eid: number, serviceId: string, connection: unknown): Promise<RouteAnswer>;
  /** A catalog change: every route is asked again. */
  clear(): void;
  /** Execution `eid` ended. */
  delete(eid: number): void;
}

/**
 * Keep the main thread's answers (by execution, then service and named connection): asked once per
 * pair, forgotten with every catalog change and with the execution's grant; refusals are not kept.
 *
 * @example
 * ```ts
 * const routes = createRouteCache((eid, serviceId, connection) => askMainThread(eid, serviceId, connection));
 * const routed = await routes.of(eid, 'github', undefined);
 * ```
 */
export function createRouteCache(
  ask: (eid: number, serviceId: string, connection: unknown) => Promise<RouteAnswer>,
): RouteCache {
  const routes = new Map<number, Map<string, Promise<RouteAnswer>>>();
  return {
    of(eid, serviceId, connection) {
      // A hostile name (not a string, or longer than any connection's) is asked each time, never kept.
      if (connection !== undefined && (typeof connection !== 'string' || connection.length > MAX_KEPT_NAME))
        return ask(eid, serviceId, connection);
      const key = connection === undefined ? serviceId : `${serviceId}\u0000${connection}`;
      let byKey = routes.get(eid);
      const known = byKey?.get(key);
      if (known) return known;
      // Kept while asked: a run's many concurrent first calls share one question.
      const answer = ask(eid, serviceId, connection);
      // Code naming thousands of services (most of them unknown) keeps a bounded cache.
      if (!byKey || byKey.size >= MAX_KEPT_ROUTES) {
        byKey = new Map();
        routes.set(eid, byKey);
      }
      const kept = byKey;
      kept.set(key, answer);
      void answer.then((routed) => {
        if ('error' in routed && kept.get(key) === answer) kept.delete(key);
      });
      return answer;
    },
    clear: () => routes.clear(),
    delete: (eid) => {
      routes.delete(eid);
    },
  };
}
