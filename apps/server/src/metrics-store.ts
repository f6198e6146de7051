import type { Store } from '@cyrnel/store';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Seconds of one store query: SQLite's sub-millisecond reads to a slow PostgreSQL. */
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The storage ports of a store whose calls are timed (the signals between hosts are not queries). */
const PORTS = ['catalog', 'processes', 'keys', 'approvals'] as const;

/** Times one call of a store port: its port, its operation (the port's method) and how it ended. */
export type StoreObserver = (port: string, operation: string, seconds: number, ok: boolean) => void;

/**
 * The store with every call of its ports timed: each method of `catalog`, `processes`, `keys` and
 * `approvals` reports its port, its name (a method of the port: a fixed, small set) and its
 * duration to `observe`, synchronous or not. The ports are otherwise untouched.
 *
 * @example
 * ```ts
 * const store = timedStore(await openSqliteStore({ filename }), storeMetrics(registry));
 * ```
 */
export function timedStore(store: Store, observe: StoreObserver): Store {
  const timed: Record<string, unknown> = {};
  for (const port of PORTS) timed[port] = timedPort(port, store[port] as object, observe);
  return new Proxy(store, {
    get: (target, key, receiver) =>
      typeof key === 'string' && key in timed ? timed[key] : Reflect.get(target, key, receiver),
  });
}

function timedPort<T extends object>(port: string, target: T, observe: StoreObserver): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, key, receiver) {
      const value: unknown = Reflect.get(object, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      let timed = wrapped.get(key);
      if (!timed) {
        timed = function (this: unknown, ...args: unknown[]) {
          const started = performance.now();
          const done = (ok: boolean) => observe(port, key, (performance.now() - started) / 1000, ok);
          let result: unknown;
          try {
            result = Reflect.apply(value, this === receiver ? object : this, args);
          } catch (error) {
            done(false);
            throw error;
          }
          if (result instanceof Promise) {
            return result.then(
              (answer: unknown) => {
                done(true);
                return answer;
              },
              (error: unknown) => {
                done(false);
                throw error;
              },
            );
          }
          done(true);
          return result;
        };
        wrapped.set(key, timed);
      }
      return timed;
    },
  });
}

/**
 * The store's metrics: a histogram of query seconds and a counter of failed queries, both by port
 * and operation; answers the observer {@link timedStore} reports to.
 */
export function storeMetrics(registry: Registry): StoreObserver {
  const seconds = new Histogram({
    name: 'cyrnel_store_query_seconds',
    help: 'Seconds of the store calls this host made, by port (catalog, processes, keys, approvals) and operation',
    labelNames: ['store', 'operation'] as const,
    buckets: QUERY_BUCKETS,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'cyrnel_store_query_errors_total',
    help: 'Store calls of this host that failed, by port and operation',
    labelNames: ['store', 'operation'] as const,
    registers: [registry],
  });
  return (store, operation, duration, ok) => {
    seconds.observe({ store, operation }, duration);
    if (!ok) failures.inc({ store, operation });
  };
}
