import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { create } from 'tar';
import type { Json } from './helpers';

/** npm's `dist.integrity` of `bytes`. */
export const sri = (bytes: Buffer) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/** An npm-style tarball (`package/…`) of `files`. */
export async function pack(root: string, name: string, files: Record<string, string>): Promise<Buffer> {
  const dir = join(root, name, 'package');
  await mkdir(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  const archive = join(root, `${name}.tgz`);
  await create({ gzip: true, cwd: join(root, name), file: archive, portable: true }, ['package']);
  return readFile(archive);
}

/** A registry (`/.well-known/registry.json`) and a minimal npm registry (`/npm/…`) on 127.0.0.1. */
export interface Registry {
  url: string;
  document: Json;
  files: Map<string, Buffer>;
  packuments: Map<string, Json>;
  close(): Promise<void>;
}

export async function startRegistry(): Promise<Registry> {
  const files = new Map<string, Buffer>();
  const packuments = new Map<string, Json>();
  const registry = { document: {} as Json, files, packuments } as Registry;
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    if (path === '/.well-known/registry.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(registry.document));
      return;
    }
    const packument = path.startsWith('/npm/') ? packuments.get(path.slice(5)) : undefined;
    if (packument) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
      return;
    }
    const file = files.get(path);
    if (file) response.writeHead(200).end(file);
    else response.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  registry.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return registry;
}

/** Publish `version` of the npm package `name` (the packument keeps earlier versions). */
export function publishNpm(
  registry: Registry,
  name: string,
  version: string,
  tarball: Buffer,
  engines?: string,
) {
  const file = `/npm/-/${name.replace('/', '-')}-${version}.tgz`;
  registry.files.set(file, tarball);
  const packument = registry.packuments.get(name) ?? { name, versions: {}, 'dist-tags': {} };
  packument.versions[version] = {
    name,
    version,
    ...(engines ? { engines: { cyrnel: engines } } : {}),
    dist: { tarball: `${registry.url}${file}`, integrity: sri(tarball) },
  };
  packument['dist-tags'].latest = version;
  registry.packuments.set(name, packument);
}
