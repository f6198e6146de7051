import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Context,
  type ContextManager,
  context,
  propagation,
  ROOT_CONTEXT,
  type TextMapPropagator,
  trace,
} from '@opentelemetry/api';
import { createRelayTracerProvider } from './relay-tracer';
import type { RelayedSpan } from './relayed-span';
import { createSpanBatcher } from './span-batch';
import { carrierOf, contextOf } from './trace-carrier';

/** A context manager on `AsyncLocalStorage`, for threads without an SDK. */
function createAsyncContextManager(): ContextManager {
  const storage = new AsyncLocalStorage<Context>();
  return {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with(ctx, fn, thisArg, ...args) {
      return storage.run(ctx, () => fn.apply(thisArg, args));
    },
    bind(ctx, target) {
      if (typeof target !== 'function') return target;
      const fn = target as (...args: unknown[]) => unknown;
      return ((...args: unknown[]) => storage.run(ctx, () => fn(...args))) as typeof target;
    },
    enable() {
      return this;
    },
    disable() {
      storage.disable();
      return this;
    },
  };
}

/** W3C Trace Context (`traceparent`, `tracestate`) on the API alone. */
export const W3C_TRACE_CONTEXT: TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const found = carrierOf(ctx);
    if (!found) return;
    setter.set(carrier, 'traceparent', found.traceparent);
    if (found.tracestate) setter.set(carrier, 'tracestate', found.tracestate);
  },
  extract(ctx, carrier, getter) {
    const first = (name: string) => {
      const value = getter.get(carrier, name);
      return Array.isArray(value) ? value[0] : value;
    };
    return contextOf({ traceparent: first('traceparent'), tracestate: first('tracestate') }, ctx);
  },
  fields: () => ['traceparent', 'tracestate'],
};

/** Most spans sent in one message: a full batch goes at once. */
const BATCH = 128;
/** Longest a span waits for its batch (the exporter batches for seconds anyway). */
const BATCH_MS = 200;

/**
 * Set up tracing in a worker thread of the egress gateway: a context manager, the W3C propagator,
 * and a tracer provider whose ended spans are sent (`post`) in batches (every 200 ms, or 128
 * spans): straight to the server's exporter thread, or through the main thread. Adapters'
 * `@opentelemetry/api` calls then record as on the main thread. Answers `flush`, which sends what
 * waits now (before the worker closes).
 */
export function installWorkerTracing(post: (spans: RelayedSpan[]) => void): () => void {
  const batcher = createSpanBatcher({ max: BATCH, delayMs: BATCH_MS, post });
  context.setGlobalContextManager(createAsyncContextManager());
  propagation.setGlobalPropagator(W3C_TRACE_CONTEXT);
  trace.setGlobalTracerProvider(createRelayTracerProvider((span) => batcher.add(span)));
  return batcher.flush;
}
