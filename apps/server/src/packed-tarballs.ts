import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** What a packed tarball says of itself (its `package/package.json`). */
interface PackedManifest {
  readonly name: string;
  readonly version: string;
  readonly dependencies: Readonly<Record<string, string>>;
}

/** A NUL-terminated field of a tar header. */
function headerField(header: Buffer, start: number, length: number): string {
  const text = header.subarray(start, start + length).toString('utf8');
  const end = text.indexOf('\0');
  return end < 0 ? text : text.slice(0, end);
}

/**
 * The body of the entry `wanted` of an uncompressed tar archive (ustar, with pax or GNU long
 * names), or undefined.
 */
function tarEntry(archive: Buffer, wanted: string): Buffer | undefined {
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= archive.length) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) return undefined;
    const size = Number.parseInt(headerField(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) return undefined;
    const type = headerField(header, 156, 1);
    const prefix = headerField(header, 345, 155);
    const name =
      longName ?? (prefix ? `${prefix}/${headerField(header, 0, 100)}` : headerField(header, 0, 100));
    longName = undefined;
    const body = archive.subarray(offset + 512, offset + 512 + size);
    if (type === 'x') longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
    else if (type === 'L') longName = headerField(body, 0, body.length);
    else if ((type === '0' || type === '') && name === wanted) return body;
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

/** The manifest of the npm tarball `file`, or undefined when it holds none that names a package. */
function packedManifest(file: string): PackedManifest | undefined {
  try {
    const body = tarEntry(gunzipSync(readFileSync(file)), 'package/package.json');
    if (!body) return undefined;
    const manifest = JSON.parse(body.toString('utf8')) as Partial<PackedManifest>;
    if (typeof manifest.name !== 'string' || typeof manifest.version !== 'string') return undefined;
    return { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies ?? {} };
  } catch {
    return undefined;
  }
}

/**
 * The tarballs in `dir` (the folder `scripts/pack.sh` fills) of the packages `names` and of every
 * package among them they depend on, transitively: package name → the tarball's absolute path.
 * Throws, naming the problem, when `dir` is no folder, when one of `names` has no tarball there,
 * or when a package has several (other versions: keep one).
 *
 * @example
 * ```ts
 * packedTarballs('dist-packages', ['@cyrnel/sdk']);
 * // Map { '@cyrnel/sdk' => '/home/me/cyrnel/dist-packages/cyrnel-sdk-0.1.0.tgz' }
 * ```
 */
export function packedTarballs(dir: string, names: readonly string[]): Map<string, string> {
  const folder = resolve(dir);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new Error(`${folder} is not a folder`);
  const found = new Map<string, { file: string; manifest: PackedManifest }[]>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.tgz'))) {
    const manifest = packedManifest(join(folder, file));
    if (manifest) found.set(manifest.name, [...(found.get(manifest.name) ?? []), { file, manifest }]);
  }
  const chosen = new Map<string, string>();
  const visit = (name: string, required: boolean) => {
    if (chosen.has(name)) return;
    const candidates = found.get(name) ?? [];
    if (candidates.length === 0) {
      if (required) throw new Error(`${folder} holds no tarball of ${name} (scripts/pack.sh writes them)`);
      return;
    }
    if (candidates.length > 1) {
      throw new Error(
        `${folder} holds ${candidates.length} tarballs of ${name} (${candidates.map(({ file }) => file).join(', ')}): keep one`,
      );
    }
    const [{ file, manifest }] = candidates as [{ file: string; manifest: PackedManifest }];
    chosen.set(name, join(folder, file));
    for (const dependency of Object.keys(manifest.dependencies)) visit(dependency, false);
  };
  for (const name of names) visit(name, true);
  return chosen;
}
