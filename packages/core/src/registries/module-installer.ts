import { randomUUID } from 'node:crypto';
import { lstat, realpath, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModuleLogger } from '@cyrnel/sdk';
import {
  INSTALL_MODULE_BODY,
  type ModuleDetail,
  type ModuleOrigin,
  type ModuleUpdateResult,
  PATCH_MODULE_BODY,
} from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import { INSTALL_RECORD } from '../modules/module-loader';
import type { ModuleRegistry } from '../modules/module-registry';
import { isValidRange } from '../modules/semver-range';
import { errorMessage } from '../scoped-logger';
import { validateBody } from '../validation/body-schema';
import { optionalBoolean, optionalString, requireModuleId, requireString } from '../validation/input';
import { pointAt, stageModule, VERSIONS_DIR } from './module-archive';
import { createModuleSources, type Resolved } from './module-sources';
import type { RegistryAccess, ServiceRegistries } from './service-registries';

/** Options of {@link createModuleInstaller}. */
export interface ModuleInstallerOptions extends RegistryAccess {
  readonly registry: ModuleRegistry;
  /** Reads a registry's metadata (the service registries' reader). */
  readonly registries: Pick<ServiceRegistries, 'read'>;
  /** Base URL of the npm registry packages are fetched from (default `https://registry.npmjs.org`). */
  readonly npmRegistry: string;
  readonly logger: ModuleLogger;
}

/** Installing and updating modules from npm and from registries. */
export interface ModuleInstaller {
  /** `POST /modules/install`: download, verify, unpack, register disabled. */
  install(input: unknown): Promise<ModuleDetail>;
  /** `POST /modules/:id/update`: the newest version within the module's range. */
  update(id: unknown): Promise<ModuleUpdateResult>;
  /** `PATCH /modules/:id`: the version range and auto-update flag. */
  configure(id: unknown, patch: unknown): Promise<ModuleDetail>;
  /** Update every module whose `autoUpdate` is on (the auto-update tick); failures are logged. */
  updateAll(): Promise<void>;
}

/** Create the {@link ModuleInstaller}. */
export function createModuleInstaller(options: ModuleInstallerOptions): ModuleInstaller {
  const { registry, download, logger } = options;
  const resolve = createModuleSources(options);

  const modulesDir = (): string => {
    if (!registry.modulesDir)
      throw cyrnelError('invalid_request', 'this server has no modules directory to install into');
    return registry.modulesDir;
  };
  const stage = (resolved: Resolved) => stageModule(resolved, modulesDir, download);

  /** Reload after a directory change; a module the scan skipped is refused with the loader's reason. */
  const activateStaged = async (id: string): Promise<void> => {
    const result = await registry.reloadInstalled(id);
    const skipped = result.skipped.find((entry) => entry.dir === id);
    if (skipped) throw cyrnelError('invalid_module_archive', `module ${id} does not load: ${skipped.error}`);
  };

  const readOrigin = async (id: string): Promise<ModuleOrigin> => {
    const detail = await registry.detail(id);
    if (detail.isBuiltin)
      throw cyrnelError('module_builtin', `module ${id} is built in: it ships with the server`);
    if (!detail.origin)
      throw cyrnelError(
        'not_from_registry',
        `module ${id} was put into the modules directory by hand: nothing to update from`,
      );
    return detail.origin;
  };

  const update = async (rawId: unknown): Promise<ModuleUpdateResult> => {
    const id = requireModuleId(rawId);
    const origin = await readOrigin(id);
    const resolved = await resolve(origin.source, origin.range, origin.autoUpdate);
    if (resolved.origin.version === origin.version)
      return { updated: false, module: await registry.detail(id) };
    const staged = await stage(resolved);
    return registry.serial(async () => {
      const target = join(modulesDir(), id);
      let previous: string | undefined;
      let committed = false;
      try {
        if (staged.id !== id)
          throw cyrnelError(
            'invalid_module_archive',
            `the new version's module.json names module ${staged.id}, not ${id}`,
          );
        // A directory placed by hand becomes a version directory, so the link can replace it.
        if (!(await lstat(target)).isSymbolicLink()) {
          const moved = join(modulesDir(), VERSIONS_DIR, randomUUID());
          await rename(target, moved);
          await pointAt(target, moved);
        }
        previous = await realpath(target).catch(() => undefined);
        await pointAt(target, staged.dir);
        try {
          await activateStaged(id);
        } catch (error) {
          // The old version goes back and is loaded again.
          if (previous) await pointAt(target, previous);
          await registry.reloadInstalled(id);
          throw error;
        }
        committed = true;
      } finally {
        // Whatever failed, the new version's directory goes.
        if (!committed) await rm(staged.dir, { recursive: true, force: true });
      }
      if (previous) await rm(previous, { recursive: true, force: true });
      logger.info('module updated', { module: id, from: origin.version, to: staged.origin.version });
      return { updated: true, module: await registry.detail(id) };
    });
  };

  return {
    async install(rawInput) {
      const input = validateBody<Record<string, unknown>>(rawInput, INSTALL_MODULE_BODY);
      const source = requireString(input.source, 'source', { nonEmpty: true });
      const range = optionalString(input.version, 'version') ?? null;
      const staged = await stage(
        await resolve(source, range, optionalBoolean(input.autoUpdate, 'autoUpdate') ?? false),
      );
      return registry.serial(async () => {
        try {
          if (registry.isBuiltin(staged.id))
            throw cyrnelError(
              'module_builtin',
              `module ${staged.id} is built in: it cannot be installed over`,
            );
          const target = join(modulesDir(), staged.id);
          if (await lstat(target).catch(() => undefined))
            throw cyrnelError('module_exists', `module ${staged.id} is already installed`);
          await pointAt(target, staged.dir);
          try {
            await activateStaged(staged.id);
          } catch (error) {
            await unlink(target);
            await registry.reloadInstalled(staged.id);
            throw error;
          }
        } catch (error) {
          await rm(staged.dir, { recursive: true, force: true });
          throw error;
        }
        logger.info('module installed', {
          module: staged.id,
          source: staged.origin.source,
          version: staged.origin.version,
        });
        return registry.detail(staged.id);
      });
    },
    update,
    async configure(rawId, rawPatch) {
      const id = requireModuleId(rawId);
      const patch = validateBody<Record<string, unknown>>(rawPatch, PATCH_MODULE_BODY);
      const range = patch.version === null ? null : optionalString(patch.version, 'version');
      if (typeof range === 'string' && !isValidRange(range) && !/^[a-z][a-z0-9._-]*$/i.test(range))
        throw cyrnelError('invalid_request', `version ${range} is neither a semver range nor a dist-tag`, {
          details: [{ path: 'version', message: 'not a semver range or dist-tag' }],
        });
      const autoUpdate = optionalBoolean(patch.autoUpdate, 'autoUpdate');
      return registry.serial(async () => {
        const origin = await readOrigin(id);
        const next: ModuleOrigin = {
          ...origin,
          ...(range === undefined ? {} : { range }),
          ...(autoUpdate === undefined ? {} : { autoUpdate }),
        };
        await writeFile(join(modulesDir(), id, INSTALL_RECORD), `${JSON.stringify(next, null, 2)}\n`);
        await registry.reloadInstalled(id);
        return registry.detail(id);
      });
    },
    async updateAll() {
      for (const detail of await registry.details()) {
        if (!detail.origin?.autoUpdate) continue;
        try {
          await update(detail.id);
        } catch (error) {
          logger.error('module auto-update failed', { module: detail.id, error: errorMessage(error) });
        }
      }
    },
  };
}
