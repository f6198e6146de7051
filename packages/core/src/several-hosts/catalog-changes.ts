import type { ModuleLogger } from '@cyrnel/sdk';
import type { DirectCallsHost } from '../direct-calls/direct-calls-host';
import type { ModuleRegistry } from '../modules/module-registry';
import { errorMessage } from '../scoped-logger';
import type { ServicesEngine } from '../services/services-api';
import type { CatalogTarget, WatchedCatalog } from './catalog-revision';
import type { HostSignals } from './host-signals';

/**
 * Tell the other hosts what a catalog write of this host touched, so they look at it now rather
 * than at their next poll (a lost signal is caught by that poll: failures are ignored).
 */
export async function announceCatalogChange(
  signals: HostSignals | undefined,
  hostId: string | undefined,
  target: CatalogTarget | undefined,
): Promise<void> {
  await signals?.publish('catalog', JSON.stringify({ ...target, from: hostId })).catch(() => undefined);
}

/** Options of {@link followCatalogChanges}. */
export interface CatalogChangesOptions {
  readonly watched: WatchedCatalog;
  readonly registry: Pick<ModuleRegistry, 'resync'>;
  readonly services: Pick<ServicesEngine, 'resync' | 'resyncService'>;
  readonly directCalls: Pick<DirectCallsHost, 'changed'>;
  /** Announcements of other hosts' writes; absent: the poll alone. */
  readonly signals: HostSignals | undefined;
  /** This host: its own announcements are ignored (its writes are in effect here already). */
  readonly hostId: string;
  /** How often the shared count is read (at least every 10 s with signals, which do the rest). */
  readonly pollMs: number;
  readonly logger: ModuleLogger;
}

/**
 * Follow the catalog writes of other hosts on the same database: a write announced by a `catalog`
 * signal is looked at at once (just the service or module it names), and a poll of the shared
 * count of writes catches what a lost signal missed (then everything is looked at). A change
 * seen re-hydrates the services it touched, follows module changes and reaches the sandbox
 * processes. Answers once the first look is done; `stop` ends the following.
 */
export async function followCatalogChanges(options: CatalogChangesOptions): Promise<{ stop(): void }> {
  const { watched, registry, services, directCalls, signals, hostId, pollMs, logger } = options;
  await watched.poll();
  await services.resync();
  // One look at a time; what was announced meanwhile is looked at next, all of it at once.
  let looking = false;
  const pending = { all: false, modules: false, services: new Set<string>() };
  const look = (target: CatalogTarget | 'all'): void => {
    if (target === 'all') pending.all = true;
    else if ('module' in target) pending.modules = true;
    else pending.services.add(target.service);
    if (looking) return;
    looking = true;
    void (async () => {
      while (pending.all || pending.modules || pending.services.size > 0) {
        const all = pending.all;
        const modules = pending.modules;
        const named = [...pending.services];
        Object.assign(pending, { all: false, modules: false });
        pending.services.clear();
        // The backstop looks at everything, only when the shared count moved.
        if (all && (await watched.poll())) {
          await registry.resync();
          await services.resync();
        } else if (modules || named.length > 0) {
          // What this host caches per revision (the policies, the gate's flags) is read again.
          watched.heard();
          if (modules) await registry.resync();
          for (const id of named) await services.resyncService(id);
        } else continue;
        await directCalls.changed();
      }
    })()
      .catch((error: unknown) =>
        logger.error('catalog: reading changes of other hosts failed', { error: errorMessage(error) }),
      )
      .finally(() => {
        looking = false;
      });
  };
  // With signals, announced changes are looked at one by one; the poll only catches what a
  // lost signal missed, so it may be slow.
  const poll = setInterval(() => look('all'), signals ? Math.max(pollMs, 10_000) : pollMs);
  poll.unref();
  const stopSignals = signals?.subscribe('catalog', (payload) => {
    const heard = parseCatalogSignal(payload);
    // This host's own writes are in effect here already.
    if (heard.from !== hostId) look(heard.target ?? 'all');
  });
  return {
    stop() {
      clearInterval(poll);
      stopSignals?.();
    },
  };
}

/** What a `catalog` signal says: the host that wrote and what it touched (none: look at everything). */
function parseCatalogSignal(payload: string | null): { from?: string; target?: CatalogTarget } {
  if (!payload) return {};
  try {
    const value = JSON.parse(payload) as { service?: unknown; module?: unknown; from?: unknown };
    const from = typeof value.from === 'string' ? { from: value.from } : {};
    if (typeof value.service === 'string') return { ...from, target: { service: value.service } };
    if (typeof value.module === 'string') return { ...from, target: { module: value.module } };
    return from;
  } catch {
    // A payload of another version: look at everything.
    return {};
  }
}
