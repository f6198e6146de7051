import type { CatalogStorage, ModuleRow } from '../catalog/catalog-storage';
import type { RegisteredModule } from './module-loader';
import type { ModuleRuntimes } from './module-runtimes';

/**
 * Reconcile the modules table with the registered modules: insert
 * unknown ones (adapters enabled; an environment enabled only when none is), mark rows whose
 * code is gone `missing` (unless another live host has it), restore reappearing ones with their previous flag, re-activate
 * modules whose code changed, and keep exactly one environment enabled.
 */
export async function reconcileModules(
  catalog: CatalogStorage,
  runtimes: ModuleRuntimes,
  registered: readonly RegisteredModule[],
  at: string,
  /** Ids that start disabled when they are new (modules just installed). */
  startDisabled: ReadonlySet<string> = new Set(),
  /** Whether another live host has the code of `id`: its row is then not `missing`. */
  elsewhere: (id: string) => boolean = () => false,
): Promise<void> {
  const rows = new Map((await catalog.listModules()).map((row) => [row.id, row]));
  const ids = new Set(registered.map((module) => module.info.id));
  const enabledEnvironments = registered
    .map((module) => rows.get(module.info.id))
    .filter((row): row is ModuleRow => row?.type === 'environment' && row.enabled);
  // The active one stays; otherwise the first in registration order (built-ins first).
  const keep =
    enabledEnvironments.find((row) => row.id === runtimes.activeEnvironmentId()) ?? enabledEnvironments[0];
  let environmentEnabled = keep !== undefined;
  for (const module of registered) {
    const { id, type, name, description, version } = module.info;
    const row = rows.get(id);
    const runtime = runtimes.of(id);
    runtime.type = type;
    if (!row) {
      const enabled = !startDisabled.has(id) && (type === 'adapter' || !environmentEnabled);
      if (type === 'environment' && enabled) environmentEnabled = true;
      await catalog.insertModule({
        id,
        type,
        name,
        description,
        version,
        isBuiltin: module.isBuiltin,
        enabled,
        missing: false,
        createdAt: at,
        updatedAt: at,
      });
      runtime.module = module;
      if (enabled) await runtimes.tryActivate(id);
      continue;
    }
    const enabled = type === 'environment' && row.enabled && keep && keep.id !== id ? false : row.enabled;
    const changed =
      row.type !== type ||
      row.name !== name ||
      row.description !== description ||
      row.version !== version ||
      row.isBuiltin !== module.isBuiltin ||
      row.missing ||
      enabled !== row.enabled;
    if (changed) {
      await catalog.updateModule(id, {
        type,
        name,
        description,
        version,
        isBuiltin: module.isBuiltin,
        enabled,
        missing: false,
        updatedAt: at,
      });
    }
    const previous = runtime.module;
    if (previous && previous.codeKey === module.codeKey && previous.info.type === type) {
      // Same code: keep the instance, take the fresh registration (its install record may have changed).
      runtime.module = module;
      if (!enabled) await runtimes.deactivate(id);
      continue;
    }
    if (previous) await runtimes.deactivate(id);
    runtime.module = module;
    if (enabled) await runtimes.tryActivate(id);
  }
  for (const row of rows.values()) {
    if (ids.has(row.id)) continue;
    if (!row.missing && !elsewhere(row.id))
      await catalog.updateModule(row.id, { missing: true, updatedAt: at });
    await runtimes.deactivate(row.id);
    Object.assign(runtimes.of(row.id), { module: undefined, type: row.type });
  }
}
