import { promisify } from 'node:util';
import { constants, zstdCompress, zstdDecompress } from 'node:zlib';
import type { DefinitionCodec } from '../store-dialect';

const compress = promisify(zstdCompress);
const decompress = promisify(zstdDecompress);

/**
 * SQLite keeps a service's definition text compressed with zstd, as a BLOB in the `definition`
 * column (TEXT affinity keeps a BLOB a BLOB; rows written before stay text and read as they are).
 * GitHub's 12.4 MiB description becomes ≈ 0.8 MiB: its install writes 13 MB fewer to the WAL
 * and checkpoints that much less, which was a quarter of the install's time on the main thread.
 * Both directions run on libuv's thread pool (zstd: ≈ 20 ms for that text, against ≈ 40 ms for
 * gzip at level 1 and a larger result). PostgreSQL compresses large text itself (TOAST), on its
 * own side, so its dialect keeps the text.
 */
export const compressedDefinitions: DefinitionCodec = {
  encode: (text, utf8) => {
    const bytes = utf8 ?? Buffer.from(text, 'utf8');
    return compress(bytes, {
      params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL },
      chunkSize: chunkFor(bytes.length / 8),
    });
  },
  decode: async (stored) =>
    typeof stored === 'string'
      ? stored
      : (await decompress(stored, { chunkSize: chunkFor(stored.length * 20) })).toString('utf8'),
};

/** zstd's default level: GitHub's description in ≈ 20 ms, as fast as level 1 on it and 12 % smaller. */
const ZSTD_LEVEL = 3;

/**
 * The output buffer of each step, sized to the expected output (descriptions compress ≈ 16×):
 * the stream behind the one-shot call comes back to the main thread after each chunk, and with
 * the default 16 KiB GitHub's text took 80 round trips and four times as long to decompress.
 */
function chunkFor(expectedBytes: number): number {
  return Math.min(16 * 2 ** 20, Math.max(64 * 1024, Math.ceil(expectedBytes)));
}
