import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { create } from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectArchive } from './archive-entries';

const LIMITS = { maxFiles: 100, maxBytes: 1024 * 1024 };
const root = mkdtempSync(join(tmpdir(), 'cyrnel-archive-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A gzipped npm-style tarball (`package/…`) of `files`, made by node-tar itself. */
function pack(name: string, files: Record<string, string | Buffer>): Buffer {
  const dir = join(root, name, 'package');
  mkdirSync(dir, { recursive: true });
  for (const [file, body] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), body);
  }
  const archive = join(root, `${name}.tgz`);
  create({ gzip: true, sync: true, cwd: join(root, name), file: archive, portable: true }, ['package']);
  return readFileSync(archive);
}

describe('inspectArchive', () => {
  it('passes a sound archive whose files span many chunks, and the long names tar writes', async () => {
    const archive = pack('sound', {
      'module.json': '{}',
      'big.bin': Buffer.alloc(300 * 1024, 7),
      [`deep/${'n'.repeat(150)}/${'m'.repeat(120)}.mjs`]: 'export {};',
      'after.mjs': 'export {};',
    });
    await expect(inspectArchive(archive, LIMITS)).resolves.toBeUndefined();
  });

  it('refuses more bytes or files than the limits', async () => {
    const big = pack('big', { 'a.bin': Buffer.alloc(600 * 1024), 'b.bin': Buffer.alloc(600 * 1024) });
    await expect(inspectArchive(big, LIMITS)).rejects.toMatchObject({ reason: 'payload_too_large' });
    const many = pack('many', Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, ''])));
    await expect(inspectArchive(many, LIMITS)).rejects.toMatchObject({ reason: 'payload_too_large' });
  });

  it('refuses an archive of zeros that inflates past the limits, quickly', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024));
    await expect(inspectArchive(bomb, LIMITS)).rejects.toMatchObject({ reason: 'payload_too_large' });
  });

  it('refuses what is not a gzipped tar', async () => {
    for (const bytes of [Buffer.from('plain text'), gzipSync('not a tar at all, just text'), Buffer.alloc(0)])
      await expect(inspectArchive(bytes, LIMITS)).rejects.toMatchObject({ reason: 'invalid_module_archive' });
  });
});
