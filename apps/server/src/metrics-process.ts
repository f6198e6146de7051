import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | undefined;

/**
 * The Node.js process's own metrics (`prom-client`'s defaults: CPU, memory, heap, handles, garbage
 * collection and the event loop's lag, `nodejs_eventloop_lag_*`), in one registry per process:
 * they describe the process, not a server in it, and each collection starts monitors that are
 * never stopped, so servers started one after the other in one process (tests, embedders) share
 * it instead of leaking a set each.
 */
export function processMetrics(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
