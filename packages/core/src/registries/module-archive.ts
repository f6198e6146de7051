import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { validateModuleManifest } from '@cyrnel/sdk';
import type { ModuleOrigin } from '@cyrnel/sdk/api';
import { type DownloadDefinitionOptions, downloadBytes } from '../definition-source/download-definition';
import { cyrnelError, isCyrnelError } from '../errors';
import { INSTALL_RECORD } from '../modules/module-loader';
import { errorMessage } from '../scoped-logger';
import { inspectArchive } from './archive-entries';
import type { Resolved } from './module-sources';

/** Where installed versions live, under the modules directory (the scan skips dot-directories). */
export const VERSIONS_DIR = '.versions';

/** An archive may unpack to at most this many files and bytes. */
const MAX_FILES = 10_000;
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

/** Point `link` at `versionDir` atomically (a symlink renamed over the old one; none left when that fails). */
export async function pointAt(link: string, versionDir: string): Promise<void> {
  const temporary = join(dirname(link), `.link-${randomUUID()}`);
  await symlink(relative(dirname(link), versionDir), temporary, 'dir');
  try {
    await rename(temporary, link);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
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

/** Errors of the file system itself (not of the archive): the server's problem, a 500. */
const DISK_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'EMFILE', 'ENFILE']);

/** An unpacking failure as a stable error: the file system's own, or the archive's. */
function unpackError(error: unknown): Error {
  if (isCyrnelError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && DISK_ERRORS.has(code))
    return cyrnelError(
      'internal',
      `the module could not be written to the modules directory: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  return cyrnelError('invalid_module_archive', `the archive could not be unpacked: ${errorMessage(error)}`, {
    cause: error,
  });
}

/** Unpack the inspected archive `bytes` into `dir`, its top directory (`package/`) stripped. */
async function unpack(bytes: Buffer, dir: string): Promise<void> {
  // Loaded by the first install from an archive: a server that never installs one does not keep
  // tar in memory (≈ 1.2 MB of RSS).
  const { extract } = await import('tar');
  await pipeline(
    Readable.from([bytes]),
    extract({
      cwd: dir,
      strip: 1,
      strict: true,
      // Inspected already; regular files and directories only, whatever the archive holds.
      filter: (_path, entry) => {
        const type = 'type' in entry ? entry.type : undefined;
        return type === 'File' || type === 'OldFile' || type === 'ContiguousFile' || type === 'Directory';
      },
    }),
  );
}

/** Read and check the unpacked `module.json` of `dir`; answers the module's id. */
async function readManifestId(dir: string): Promise<string> {
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
  if (problems.length > 0) throw cyrnelError('invalid_module_archive', `module.json: ${problems.join('; ')}`);
  return (manifest as { id: string }).id;
}

/** Remove a staging directory; a write still in flight when unpacking failed is swept a moment later. */
async function removeStaged(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  setTimeout(() => void rm(dir, { recursive: true, force: true }).catch(() => undefined), 1000).unref();
}

/**
 * Download, verify, inspect and unpack `resolved` into a new version directory of `modulesDir()`
 * (asked once the archive is verified and inspected); answers it and the module's manifest id.
 * Every failure is a stable error (`upstream_failed`, `payload_too_large`, `integrity_mismatch`,
 * `invalid_module_archive`; `internal` when the disk refuses) and leaves nothing behind.
 */
export async function stageModule(
  resolved: Resolved,
  modulesDir: () => string,
  download: DownloadDefinitionOptions,
): Promise<StagedModule> {
  const { bytes } = await downloadBytes(resolved.url, { ...download, accept: 'application/octet-stream' });
  resolved.verify(bytes);
  // Every header is read before a byte is written: a refused archive never touches the disk.
  await inspectArchive(bytes, { maxFiles: MAX_FILES, maxBytes: MAX_UNPACKED_BYTES });
  // Each installed version gets its own directory, linked from `<modulesDir>/<id>`: the real path
  // of its files is new, so Node's module cache cannot answer an update with the old code.
  const dir = join(modulesDir(), VERSIONS_DIR, randomUUID());
  let staged = false;
  try {
    await mkdir(dir, { recursive: true });
    await unpack(bytes, dir).catch((error: unknown) => {
      throw unpackError(error);
    });
    const id = await readManifestId(dir);
    const origin = { ...resolved.origin, integrity: integrityOf(bytes) };
    await writeFile(join(dir, INSTALL_RECORD), `${JSON.stringify(origin, null, 2)}\n`).catch(
      (error: unknown) => {
        throw unpackError(error);
      },
    );
    staged = true;
    return { dir, id, origin };
  } finally {
    if (!staged) await removeStaged(dir);
  }
}
