// The adapters of portable calls, as each egress gateway worker runs them (`../gateway/`), never a
// sandbox process: portable adapters with what the main thread prepared, under the host's own
// rules: the same validator and the same guard around `invoke` (deadline, abort, error translation).
import type {
  AdapterModule,
  DirectCall,
  DirectCallRuntime,
  ModuleLogger,
  ServiceState,
  ToolState,
} from '@cyrnel/sdk';
import { cyrnelError, isPlainObject } from '@cyrnel/sdk';
import type { ValidateFunction } from 'ajv';
import { guardedInvoke } from '../modules/guarded-invoke';
import { createOutboundPolicy } from '../outbound/outbound-policy';
import { compile } from '../validation/validation-worker';
import type { PreparedCall } from './prepared-call';

/** Tools (and refusals) one worker keeps prepared before it starts over. */
const MAX_ROUTES = 10_000;

const silent: ModuleLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** One set-up adapter instance: per module, config, secrets and outbound policy. */
interface AdapterEntry {
  readonly instance: AdapterModule;
  /** Aborted when the entry is retired: calls still running on it end with it. */
  readonly closing: AbortController;
  /** Services hydrated here, with the tools prepared so far; each hydration chained after the last. */
  readonly services: Map<string, { state: ServiceState; chain: Promise<void> }>;
  /** Calls running on it (a retired entry is torn down when none is left). */
  running: number;
  /** Aborts of the calls running on it, by service. */
  readonly calls: Map<string, Set<AbortController>>;
  retired: boolean;
}

/** A tool the runtime calls itself. */
interface Route {
  readonly entry: AdapterEntry;
  readonly validate: ValidateFunction;
  readonly invokeMs: number;
}

/**
 * Create the runtime of one egress gateway worker.
 *
 * @example
 * ```ts
 * const runtime = createDirectCallRuntime();
 * const call = await runtime.route('weather', 'getForecast', { city: 'Oslo' }, askTheHost);
 * const result = call ? await call.run(signal) : await throughTheHost();
 * ```
 */
export function createDirectCallRuntime(options: { readonly answerBytes?: number } = {}): DirectCallRuntime {
  /** The last revision the host announced; prepared calls of another one are not used. */
  let revision: string | undefined;
  /** Grows with every change: work begun before one is not kept. */
  let generation = 0;
  const entries = new Map<string, Promise<AdapterEntry>>();
  // `serviceId\0toolId` → the route, or null: through the host until the next change.
  const routes = new Map<string, Promise<Route | null>>();

  // Retired entries whose calls still run: a later change may drop their services.
  const draining = new Set<AdapterEntry>();

  const retire = (entry: AdapterEntry) => {
    entry.retired = true;
    if (entry.running > 0) {
      draining.add(entry);
      return;
    }
    draining.delete(entry);
    entry.closing.abort();
    for (const calls of entry.calls.values())
      for (const call of calls) call.abort(entry.closing.signal.reason);
    void entry.instance.teardown().catch(() => undefined);
  };

  const entryOf = (adapter: PreparedCall['adapter']): Promise<AdapterEntry> => {
    const key = JSON.stringify([
      adapter.moduleUrl,
      adapter.exportName,
      adapter.config,
      adapter.secrets,
      adapter.outbound,
    ]);
    let entry = entries.get(key);
    if (!entry) {
      entry = (async () => {
        const loaded = (await import(adapter.moduleUrl)) as Record<string, unknown>;
        const definition = loaded[adapter.exportName] as { instantiate?: () => unknown } | undefined;
        if (typeof definition?.instantiate !== 'function')
          throw new Error(`${adapter.moduleUrl} does not export ${adapter.exportName}.instantiate()`);
        const instance = (await definition.instantiate()) as AdapterModule;
        const outbound = adapter.outbound;
        await instance.setup({
          config: adapter.config,
          secrets: adapter.secrets,
          logger: silent,
          ...(options.answerBytes === undefined ? {} : { answerBytes: options.answerBytes }),
          ...(outbound
            ? {
                outbound: createOutboundPolicy({
                  allowPrivateUrls: outbound.allowPrivateUrls,
                  allowCidrs: outbound.allowCidrs,
                  denyCidrs: outbound.denyCidrs,
                  ownEndpoint: () => outbound.ownEndpoint,
                }),
              }
            : {}),
        });
        return {
          instance,
          closing: new AbortController(),
          services: new Map(),
          running: 0,
          calls: new Map(),
          retired: false,
        };
      })();
      entries.set(key, entry);
      // A module that cannot be loaded here is retried after the next change, not on every call.
      entry.catch(() => undefined);
    }
    return entry;
  };

  /** Hydrate the service with the prepared tool added (the adapter replaces its snapshot). */
  const hydrate = (entry: AdapterEntry, prepared: PreparedCall): Promise<void> => {
    const id = prepared.service.id;
    const held = entry.services.get(id);
    const tools: Record<string, ToolState> = {
      ...held?.state.tools,
      [prepared.tool.id]: prepared.tool.state,
    };
    const state: ServiceState = { ...prepared.service, tools };
    const chain = (held?.chain ?? Promise.resolve()).then(() => entry.instance.hydrateService(state));
    entry.services.set(id, { state, chain: chain.catch(() => undefined) });
    return chain;
  };

  const build = async (prepared: PreparedCall | undefined, at: number): Promise<Route | null> => {
    if (at !== generation || !prepared) return null;
    if (revision !== undefined && prepared.revision !== revision) return null;
    const validate = compile(prepared.tool.inputSchema);
    const entry = await entryOf(prepared.adapter);
    if (at !== generation || entry.retired) return null;
    await hydrate(entry, prepared);
    return { entry, validate, invokeMs: prepared.adapter.invokeMs };
  };

  return {
    async route(serviceId, toolId, parameters, prepare) {
      if (typeof serviceId !== 'string' || typeof toolId !== 'string' || !isPlainObject(parameters))
        return undefined;
      const key = `${serviceId}\u0000${toolId}`;
      const at = generation;
      let pending = routes.get(key);
      if (!pending) {
        // Hostile code may name millions of tools that do not exist: the cache stays bounded.
        if (routes.size >= MAX_ROUTES) routes.clear();
        pending = prepare(serviceId, toolId)
          .then((prepared) => build(prepared as PreparedCall | undefined, at))
          .catch(() => null);
        routes.set(key, pending);
      }
      const route = await pending;
      // Nothing prepared before a change is used after it; invalid parameters go to the host,
      // whose gate answers with the problems.
      if (at !== generation || !route || route.entry.retired || !route.validate(parameters)) return undefined;
      const { entry, invokeMs } = route;
      // Held from now until the call ran or was let go: a change arriving while its start is
      // audited retires the entry, but does not tear its adapter instance down under it.
      entry.running++;
      let settled = false;
      const settle = () => {
        if (settled) return false;
        settled = true;
        return true;
      };
      const done = () => {
        entry.running--;
        if (entry.retired) retire(entry);
      };
      const call: DirectCall = {
        release() {
          if (settle()) done();
        },
        async run(signal) {
          if (!settle()) throw cyrnelError('invalid_request', 'a direct call runs once');
          // Aborted with the caller's signal, or when the host drops the service meanwhile.
          const own = new AbortController();
          const forward = () => own.abort(signal.reason);
          if (signal.aborted) forward();
          else signal.addEventListener('abort', forward, { once: true });
          let calls = entry.calls.get(serviceId);
          if (!calls) {
            calls = new Set();
            entry.calls.set(serviceId, calls);
          }
          calls.add(own);
          try {
            // The call's own signal only (the entry's end aborts it through `entry.calls`): a
            // listener per call on one shared signal costs O(n) each, thousands at once O(n²).
            if (entry.closing.signal.aborted) own.abort(entry.closing.signal.reason);
            return await guardedInvoke(
              entry.instance,
              { serviceId, toolId, parameters },
              { signal: own.signal, invokeMs, logger: silent },
            );
          } finally {
            signal.removeEventListener('abort', forward);
            calls.delete(own);
            if (calls.size === 0) entry.calls.delete(serviceId);
            done();
          }
        },
      };
      return call;
    },
    async changed({ revision: next, dropped }) {
      revision = next;
      generation++;
      routes.clear();
      const retiring = [...entries.values()];
      entries.clear();
      // Secrets and snapshots go with the entries; calls already running finish on theirs.
      const settled = await Promise.allSettled(retiring);
      const all = [...draining];
      for (const entry of settled) if (entry.status === 'fulfilled') all.push(entry.value);
      for (const entry of all) {
        for (const serviceId of Array.isArray(dropped) ? dropped : []) {
          for (const call of entry.calls.get(serviceId) ?? []) {
            call.abort(
              cyrnelError('upstream_failed', `service ${serviceId} was disabled or removed during the call`),
            );
          }
        }
        retire(entry);
      }
    },
    async close() {
      generation++;
      routes.clear();
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(
        all.map((pending) =>
          pending.then(
            (entry) => {
              entry.closing.abort();
              for (const calls of entry.calls.values())
                for (const call of calls) call.abort(entry.closing.signal.reason);
              return entry.instance.teardown();
            },
            () => undefined,
          ),
        ),
      );
    },
  };
}
