import type { CatalogStorage, ModuleRow } from '../catalog/catalog-storage';
import type { ModuleRuntimes } from '../modules/module-runtimes';

/** Following the module changes other hosts make on the shared table. */
export interface ModuleResync {
  /** What this host acted on for `row` (its flag and its settings), so its own change is not followed again. */
  remember(row: ModuleRow): Promise<void>;
  /**
   * Follow module changes another host made: enable, disable, config and secrets, read from the
   * shared table; a module whose code is not here is left alone. Run it serialized with every
   * other module change.
   */
  resync(): Promise<void>;
}

/** Create the resync of modules over their runtimes here. */
export function createModuleResync(catalog: CatalogStorage, runtimes: ModuleRuntimes): ModuleResync {
  const owner = (id: string) => ({ kind: 'module', id }) as const;
  /** What this host last acted on per module: its flag and its settings (to follow other hosts). */
  const seen = new Map<string, { enabled: boolean; settings: string }>();
  const settingsOf = async (id: string): Promise<string> => {
    const [config, secrets] = await Promise.all([
      catalog.getConfig(owner(id)),
      catalog.getSecrets(owner(id)),
    ]);
    return JSON.stringify([config ?? null, secrets ?? null]);
  };
  return {
    async remember(row) {
      seen.set(row.id, { enabled: row.enabled, settings: await settingsOf(row.id) });
    },
    async resync() {
      for (const row of await catalog.listModules()) {
        if (!runtimes.get(row.id)?.module) continue;
        const before = seen.get(row.id);
        const settings = await settingsOf(row.id);
        seen.set(row.id, { enabled: row.enabled, settings });
        if (!before) continue;
        if (!row.enabled) {
          if (before.enabled) await runtimes.deactivate(row.id);
          continue;
        }
        // Enabled elsewhere, or its settings changed: set up again (an environment takes over
        // and the previous one drains). A module that failed here is not retried on every change.
        const changed = before.settings !== settings;
        if (before.enabled && !changed) continue;
        const active = runtimes.status(row) === 'active';
        if (active && !changed) continue;
        if (active && row.type === 'adapter') await runtimes.deactivate(row.id);
        await runtimes.tryActivate(row.id);
      }
    },
  };
}
