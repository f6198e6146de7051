import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { validateModuleManifest } from '@cyrnel/sdk';
import type { ModuleOrigin } from '@cyrnel/sdk/api';
import { extract } from 'tar';
import { type DownloadDefinitionOptions, downloadBytes } from '../definition-source/download-definition';
import { cyrnelError, isCyrnelError } from '../errors';
import { INSTALL_RECORD } from '../modules/module-loader';
import { errorMessage } from '../scoped-logger';
import type { Resolved } from './module-sources';

/** Where installed versions live, under the modules directory (the scan skips dot-directories). */
export const VERSIONS_DIR = '.versions';

/** An archive may unpack to at most this many files and bytes. */
const MAX_FILES = 10_000;
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

/** Point `link` at `versionDir` atomically (a symlink renamed over the old one). */
export async function pointAt(link: string, versionDir: string): Promise<void> {
  const temporary = join(dirname(link), `.link-${randomUUID()}`);
  await symlink(relative(dirname(link), versionDir), temporary, 'dir');
  await rename(temporary, link);
}

function integrityOf(bytes: Buffer): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/** A module version unpacked beside the installed ones, not linked yet. */
export interface StagedModule {
  readonly dir: string;
  /** The id its `module.json` names. */
  readonly id: string;
  readonly origin: ModuleOrigin;
}

/**
 * Download, verify and unpack `resolved` into a new version directory of `modulesDir()` (asked
 * once the archive is verified); answers it and the module's manifest id. Nothing is left behind
 * when it fails.
 */
export async function stageModule(
  resolved: Resolved,
  modulesDir: () => string,
  download: DownloadDefinitionOptions,
): Promise<StagedModule> {
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
    throw cyrnelError('invalid_module_archive', `the archive could not be unpacked: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}
