import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Parser, type ReadEntry } from 'tar';
import { type CyrnelError, cyrnelError, isCyrnelError } from '../errors';
import { errorMessage } from '../scoped-logger';

/** What a module archive may hold once unpacked. */
export interface ArchiveLimits {
  /** Most files and directories. */
  readonly maxFiles: number;
  /** Most bytes of all files together, as their headers declare them. */
  readonly maxBytes: number;
}

/** Entry types an archive may hold: regular files and directories, nothing else. */
const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/** Why `entry` may not be unpacked (its path once the top directory, `package/`, is stripped), or undefined. */
function entryProblem(entry: ReadEntry): CyrnelError | undefined {
  const type = String(entry.type);
  if (!FILE_TYPES.has(type) && type !== 'Directory')
    return cyrnelError(
      'invalid_module_archive',
      `the archive holds ${entry.path}, a ${type}: only regular files and directories are unpacked`,
    );
  const path = entry.path.replaceAll('\\', '/');
  const segments = path.split('/').slice(1);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || segments.includes('..') || path.includes('\0'))
    return cyrnelError('invalid_module_archive', `the archive entry ${entry.path} points outside the module`);
  return undefined;
}

/**
 * Read every header of the gzipped tar `bytes` before anything is written: a bad gzip or tar, a
 * path leaving the module (absolute, `..`), a link, a device, or more files or bytes than
 * `limits` allow is refused here, so unpacking afterwards meets only what the file system may
 * still refuse. Throws `invalid_module_archive` (502) or `payload_too_large` (413).
 *
 * @example
 * ```ts
 * await inspectArchive(bytes, { maxFiles: 10_000, maxBytes: 256 * 1024 * 1024 });
 * ```
 */
export async function inspectArchive(bytes: Buffer, limits: ArchiveLimits): Promise<void> {
  let files = 0;
  let size = 0;
  let refused: CyrnelError | undefined;
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry) => {
      entry.resume();
      if (refused) return;
      refused = entryProblem(entry);
      files++;
      size += FILE_TYPES.has(String(entry.type)) ? entry.size : 0;
      if (!refused && (files > limits.maxFiles || size > limits.maxBytes))
        refused = cyrnelError(
          'payload_too_large',
          `the archive unpacks to more than ${limits.maxFiles} files or ${limits.maxBytes} bytes`,
        );
      if (refused) parser.abort(refused);
    },
  });
  try {
    await pipeline(Readable.from([bytes]), parser);
  } catch (error) {
    if (refused) throw refused;
    if (isCyrnelError(error)) throw error;
    throw cyrnelError('invalid_module_archive', `the archive is not a gzipped tar: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (refused) throw refused;
  if (files === 0) throw cyrnelError('invalid_module_archive', 'the archive is empty');
}
