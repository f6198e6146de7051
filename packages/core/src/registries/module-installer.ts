import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, realpath, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isPlainObject, type ModuleLogger, validateModuleManifest } from '@cyrnel/sdk';
import {
  INSTALL_MODULE_BODY,
  type ModuleDetail,
  type ModuleOrigin,
  type ModuleUpdateResult,
  PATCH_MODULE_BODY,
} from '@cyrnel/sdk/api';
import semver from 'semver';
import { extract } from 'tar';
import { downloadBytes } from '../definition-source/download-definition';
import { cyrnelError, isCyrnelError } from '../errors';
import { INSTALL_RECORD } from '../modules/module-loader';
import type { ModuleRegistry } from '../modules/module-registry';
import { isValidRange, satisfiesRange } from '../modules/semver-range';
import { errorMessage } from '../scoped-logger';
import { validateBody } from '../validation/body-schema';
import { optionalBoolean, optionalString, requireModuleId, requireString } from '../validation/input';
import { chooseVersion, verifySha256 } from './registry-document';
import type { RegistryAccess, ServiceRegistries } from './service-registries';

/** Where installed versions live, under the modules directory (the scan skips dot-directories). */
const VERSIONS_DIR = '.versions';

/** Point `link` at `versionDir` atomically (a symlink renamed over the old one). */
async function pointAt(link: string, versionDir: string): Promise<void> {
  const temporary = join(dirname(link), `.link-${randomUUID()}`);
  await symlink(relative(dirname(link), versionDir), temporary, 'dir');
  await rename(temporary, link);
}

/** An archive may unpack to at most this many files and bytes. */
const MAX_FILES = 10_000;
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

/** npm package names (`name`, `@scope/name`), as npm validates them today. */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

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

/** A resolved archive: where to download it, how to verify it, what it will be recorded as. */
interface Resolved {
  readonly url: string;
  readonly verify: (bytes: Buffer) => void;
  readonly origin: ModuleOrigin;
}

function integrityOf(bytes: Buffer): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/**
 * Check `bytes` against npm's `dist.integrity` (SRI: any of its sha512/sha384/sha256 digests must
 * match) or, for old packages without one, `dist.shasum` (SHA-1 hex).
 */
function verifyNpm(what: string, bytes: Buffer, integrity: unknown, shasum: unknown): void {
  if (typeof integrity === 'string' && integrity.trim() !== '') {
    const entries = integrity.trim().split(/\s+/);
    const supported = entries.filter((entry) => /^sha(256|384|512)-/.test(entry));
    if (supported.length === 0)
      throw cyrnelError('invalid_registry', `${what}: no supported digest in its integrity`);
    const ok = supported.some((entry) => {
      const [algorithm, digest] = entry.split('-', 2) as [string, string];
      return createHash(algorithm).update(bytes).digest('base64') === digest.split('?')[0];
    });
    if (!ok)
      throw cyrnelError(
        'integrity_mismatch',
        `${what}: the tarball does not match its integrity ${entries[0]}`,
      );
    return;
  }
  if (typeof shasum === 'string') {
    if (createHash('sha1').update(bytes).digest('hex') !== shasum.toLowerCase())
      throw cyrnelError('integrity_mismatch', `${what}: the tarball does not match its shasum`);
    return;
  }
  throw cyrnelError('invalid_registry', `${what}: the npm metadata gives no integrity or shasum`);
}

/** Create the {@link ModuleInstaller}. */
export function createModuleInstaller(options: ModuleInstallerOptions): ModuleInstaller {
  const { registry, download, hostVersion, logger } = options;
  const npmBase = options.npmRegistry.replace(/\/+$/, '');

  const modulesDir = (): string => {
    if (!registry.modulesDir)
      throw cyrnelError('invalid_request', 'this server has no modules directory to install into');
    return registry.modulesDir;
  };

  const resolveNpm = async (name: string, range: string | null, autoUpdate: boolean): Promise<Resolved> => {
    const url = `${npmBase}/${name.replace('/', '%2f')}`;
    const { bytes } = await downloadBytes(url, {
      ...download,
      accept: 'application/json',
      notFound: () => cyrnelError('registry_entry_not_found', `the npm registry has no package ${name}`),
    });
    let packument: unknown;
    try {
      packument = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw cyrnelError('invalid_registry', `npm metadata of ${name} is not valid JSON`);
    }
    if (!isPlainObject(packument) || !isPlainObject(packument.versions))
      throw cyrnelError('invalid_registry', `npm metadata of ${name} has no versions`);
    const tags = isPlainObject(packument['dist-tags']) ? packument['dist-tags'] : {};
    const versions = Object.keys(packument.versions).filter((version) => semver.valid(version) !== null);
    const wanted = range ?? 'latest';
    let version: string | undefined;
    if (typeof tags[wanted] === 'string') version = tags[wanted] as string;
    else if (isValidRange(wanted)) version = semver.maxSatisfying(versions, wanted) ?? undefined;
    else
      throw cyrnelError(
        'invalid_request',
        `version ${wanted} is neither a semver range nor a dist-tag of ${name}`,
        {
          details: [{ path: 'version', message: 'not a semver range or dist-tag' }],
        },
      );
    const manifest = version === undefined ? undefined : packument.versions[version];
    if (version === undefined || !isPlainObject(manifest))
      throw cyrnelError('registry_entry_not_found', `npm package ${name} has no version matching ${wanted}`);
    const engines = isPlainObject(manifest.engines) ? manifest.engines : {};
    if (typeof engines.cyrnel === 'string' && !satisfiesRange(hostVersion, engines.cyrnel))
      throw cyrnelError(
        'incompatible_version',
        `${name}@${version} requires cyrnel ${engines.cyrnel}, this server is ${hostVersion}`,
      );
    const dist = isPlainObject(manifest.dist) ? manifest.dist : {};
    if (typeof dist.tarball !== 'string')
      throw cyrnelError('invalid_registry', `${name}@${version} has no tarball`);
    return {
      url: dist.tarball,
      verify: (archive) => verifyNpm(`${name}@${version}`, archive, dist.integrity, dist.shasum),
      origin: { kind: 'npm', source: name, version, range, autoUpdate, integrity: '' },
    };
  };

  const resolveRegistry = async (
    source: string,
    range: string | null,
    autoUpdate: boolean,
  ): Promise<Resolved> => {
    const hash = source.indexOf('#');
    const id = source.slice(hash + 1);
    const { url, document } = await options.registries.read(source.slice(0, hash));
    const entry = document.modules && Object.hasOwn(document.modules, id) ? document.modules[id] : undefined;
    if (!entry) throw cyrnelError('registry_entry_not_found', `registry ${url} has no module ${id}`);
    const chosen = chooseVersion(`module ${id}`, entry, range ?? undefined, hostVersion);
    return {
      url: chosen.url,
      verify: (archive) => verifySha256(`module ${id} ${chosen.version}`, archive, chosen.hash),
      origin: {
        kind: 'registry',
        source: `${url}#${id}`,
        version: chosen.version,
        range,
        autoUpdate,
        integrity: '',
      },
    };
  };

  const resolve = (source: string, range: string | null, autoUpdate: boolean): Promise<Resolved> => {
    if (source.includes('#')) return resolveRegistry(source, range, autoUpdate);
    const name = source.startsWith('npm:') ? source.slice(4) : source;
    if (!NPM_NAME.test(name))
      throw cyrnelError(
        'invalid_request',
        `source ${source} is neither an npm package name nor <registry URL>#<module id>`,
        {
          details: [{ path: 'source', message: 'not an npm package name or <registry URL>#<module id>' }],
        },
      );
    return resolveNpm(name, range, autoUpdate);
  };

  /** Download, verify and unpack into a staging directory; answers it and the module's manifest id. */
  const stage = async (resolved: Resolved): Promise<{ dir: string; id: string; origin: ModuleOrigin }> => {
    const { bytes } = await downloadBytes(resolved.url, { ...download, accept: 'application/octet-stream' });
    resolved.verify(bytes);
    // Each installed version gets its own directory, linked from `<modulesDir>/<id>`: the real path
    // of its files is new, so Node's module cache cannot answer an update with the old code.
    const dir = join(modulesDir(), VERSIONS_DIR, randomUUID());
    await mkdir(dir, { recursive: true });
    try {
      let files = 0;
      let size = 0;
      await pipeline(
        Readable.from([bytes]),
        extract({
          cwd: dir,
          strip: 1,
          strict: true,
          // Regular files and directories only: no links, devices or FIFOs from an archive.
          filter: (_path, entry) => {
            const type = 'type' in entry ? entry.type : undefined;
            if (type !== 'File' && type !== 'Directory') return false;
            files++;
            size += 'size' in entry && typeof entry.size === 'number' ? entry.size : 0;
            if (files > MAX_FILES || size > MAX_UNPACKED_BYTES)
              throw cyrnelError('invalid_module_archive', 'the archive unpacks to too many files or bytes');
            return true;
          },
        }),
      );
      const manifestFile = join(dir, 'module.json');
      if (!existsSync(manifestFile))
        throw cyrnelError(
          'invalid_module_archive',
          'the archive has no module.json at its root (package/module.json)',
        );
      let manifest: unknown;
      try {
        manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
      } catch {
        throw cyrnelError('invalid_module_archive', 'module.json is not valid JSON');
      }
      const problems = validateModuleManifest(manifest);
      if (problems.length > 0)
        throw cyrnelError('invalid_module_archive', `module.json: ${problems.join('; ')}`);
      const id = (manifest as { id: string }).id;
      const origin = { ...resolved.origin, integrity: integrityOf(bytes) };
      await writeFile(join(dir, INSTALL_RECORD), `${JSON.stringify(origin, null, 2)}\n`);
      return { dir, id, origin };
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      if (isCyrnelError(error)) throw error;
      throw cyrnelError(
        'invalid_module_archive',
        `the archive could not be unpacked: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
  };

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
      if (staged.id !== id) {
        await rm(staged.dir, { recursive: true, force: true });
        throw cyrnelError(
          'invalid_module_archive',
          `the new version's module.json names module ${staged.id}, not ${id}`,
        );
      }
      // A directory placed by hand becomes a version directory, so the link can replace it.
      if (!(await lstat(target)).isSymbolicLink()) {
        const moved = join(modulesDir(), VERSIONS_DIR, randomUUID());
        await rename(target, moved);
        await pointAt(target, moved);
      }
      const previous = await realpath(target).catch(() => undefined);
      await pointAt(target, staged.dir);
      try {
        await activateStaged(id);
      } catch (error) {
        // The old version goes back and is loaded again.
        if (previous) await pointAt(target, previous);
        await rm(staged.dir, { recursive: true, force: true });
        await registry.reloadInstalled(id);
        throw error;
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
