import { gzipSync } from 'node:zlib';

/** One entry of a hand-made tar archive: any path, type and size, whatever tools would refuse. */
export interface TarEntry {
  readonly path: string;
  /** `0` file (default), `5` directory, `1` hard link, `2` symbolic link, `3`/`4` devices, `6` FIFO, `x` pax header. */
  readonly type?: '0' | '1' | '2' | '3' | '4' | '5' | '6' | 'x';
  readonly body?: string | Buffer;
  /** The size the header claims (default the body's): larger than the body makes a cut entry. */
  readonly size?: number;
  readonly linkname?: string;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** One 512-byte ustar header of `entry`, its checksum computed as tar does. */
function header(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(entry.path, 0, 100, 'utf8');
  block.write(octal(entry.type === '5' ? 0o755 : 0o644, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(1_700_000_000, 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(entry.type ?? '0', 156, 'ascii');
  if (entry.linkname) block.write(entry.linkname, 157, 100, 'utf8');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/**
 * A gzipped tar archive of `entries`, written byte by byte (no tool would make some of them:
 * paths with `..`, links, entries claiming more bytes than they hold). `end: false` leaves the
 * closing blocks out, as an archive cut short would.
 */
export function tarGz(entries: readonly TarEntry[], options: { end?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const body = entry.body === undefined ? Buffer.alloc(0) : Buffer.from(entry.body);
    parts.push(header(entry, entry.size ?? body.length), body);
    const pad = (BLOCK - (body.length % BLOCK)) % BLOCK;
    parts.push(Buffer.alloc(pad));
  }
  if (options.end !== false) parts.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(parts));
}
