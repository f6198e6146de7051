import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ReadEntry } from 'tar';
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
 * Read every header of the gzipped tar `bytes` before anything is written (inflating at most what
 * `limits` allow, plus the headers): a bad gzip or tar, a
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
  // Loaded on first use, as for unpacking (`module-archive.ts`).
  const { Parser } = await import('tar');
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
  // Decompressed here, counted: a small archive of zeros must not cost gigabytes of inflating.
  // Room for the headers (512 bytes a file, at most two blocks with a long name) and padding.
  const maxTarBytes = limits.maxBytes + limits.maxFiles * 2048 + 1024 * 1024;
  let inflated = 0;
  const end = createEndOfArchive();
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > maxTarBytes) {
        refused ??= cyrnelError(
          'payload_too_large',
          `the archive unpacks to more than ${maxTarBytes} bytes of tar`,
        );
        done(refused);
        return;
      }
      // Nothing past the end of the archive reaches the parser (it would buffer all of it).
      const kept = end.keep(chunk);
      done(null, kept.length > 0 ? kept : undefined);
    },
  });
  try {
    await pipeline(Readable.from([bytes]), createGunzip(), counter, parser);
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

/**
 * Where a tar stream ends (its first all-zero header block): `keep` answers the part of each
 * chunk up to and including that block, and nothing after it. Headers are walked by their size
 * fields (octal, or base-256 for large sizes); the parser checks everything else.
 */
function createEndOfArchive(): { keep(chunk: Buffer): Buffer } {
  let skip = 0;
  let carry = Buffer.alloc(0);
  let ended = false;
  return {
    keep(chunk) {
      if (ended) return Buffer.alloc(0);
      const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const start = carry.length;
      let position = 0;
      for (;;) {
        if (skip > 0) {
          const step = Math.min(skip, data.length - position);
          skip -= step;
          position += step;
          if (skip > 0) break;
        }
        if (data.length - position < 512) break;
        const header = data.subarray(position, position + 512);
        position += 512;
        if (header.every((byte) => byte === 0)) {
          ended = true;
          carry = Buffer.alloc(0);
          return data.subarray(start, Math.max(start, position));
        }
        skip = Math.ceil(entrySize(header.subarray(124, 136)) / 512) * 512;
      }
      carry = Buffer.from(data.subarray(position));
      return chunk;
    },
  };
}

/** The size field of a tar header: octal text, or base-256 when its first byte has the high bit. */
function entrySize(field: Buffer): number {
  if ((field[0] ?? 0) & 0x80) {
    let size = (field[0] ?? 0) & 0x7f;
    for (const byte of field.subarray(1)) size = size * 256 + byte;
    return size;
  }
  const size = Number.parseInt(
    field
      .toString('latin1')
      .replace(/[\0 ]+$/, '')
      .trim() || '0',
    8,
  );
  return Number.isFinite(size) && size > 0 ? size : 0;
}
