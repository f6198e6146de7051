import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, type Json, startTestServer, tempDir } from './helpers';
import { publishNpm, type Registry, startRegistry } from './registry-helpers';
import { type TarEntry, tarGz } from './tar-builder';

/** A module's `module.json`: an adapter `id` whose code is `main`. */
function manifest(id: string, main = 'index.mjs'): string {
  return JSON.stringify({
    id,
    name: id,
    description: `adapter ${id}`,
    type: 'adapter',
    main,
    version: '1.0.0',
  });
}

const ADAPTER = `export default {
  configSchema: { type: 'object' },
  secretsSchema: { type: 'object' },
  instantiate() {
    return { async setup() {}, async teardown() {}, async generateDefinition() { throw new Error('none'); },
      async hydrateService() {}, async dehydrateService() {}, async invoke() { return {}; } };
  },
};
`;

/** The files of a sound module `id`, under `package/`. */
function moduleFiles(id: string): TarEntry[] {
  return [
    { path: 'package/', type: '5' },
    { path: 'package/module.json', body: manifest(id) },
    { path: 'package/index.mjs', body: ADAPTER },
    { path: 'package/lib/', type: '5' },
    { path: 'package/lib/util.mjs', body: 'export const x = 1;\n' },
  ];
}

/** A pax header (`x`) giving the next entry a path longer than a ustar header holds. */
function longPath(path: string): TarEntry {
  const record = (length: number) => `${length} path=${path}\n`;
  let length = record(0).length;
  while (record(length).length !== length) length = record(length).length;
  return { path: 'package/PaxHeader', type: 'x', body: record(length) };
}

describe('module installs that fail answer with a reason and leave nothing behind', () => {
  let server: RunningServer;
  let registry: Registry;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;

  /** Everything under the modules directory, as relative paths. */
  const leftovers = async (): Promise<string[]> => {
    const modules = join(dir.path, 'modules');
    const entries = await readdir(modules, { recursive: true }).catch(() => [] as string[]);
    return entries.filter((entry) => entry !== '.versions').sort();
  };

  beforeAll(async () => {
    dir = await tempDir();
    registry = await startRegistry();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: 'install-key',
      urlAllowCidrs: ['127.0.0.1/32'],
      npmRegistry: `${registry.url}/npm`,
      maxDefinitionBytes: 1024 * 1024,
    });
    api = apiClient(server.url, 'install-key');
  });
  afterAll(async () => {
    await server?.close();
    await registry?.close();
    await dir?.remove();
  });

  const install = async (name: string, tarball: Buffer): Promise<Json> => {
    publishNpm(registry, name, '1.0.0', tarball);
    return api('POST', '/modules/install', { source: name });
  };

  const cases: readonly (readonly [string, () => Buffer, number, string])[] = [
    ['not gzip at all', () => Buffer.from('this is not a gzip archive'), 502, 'invalid_module_archive'],
    ['a gzip cut in half', () => tarGz(moduleFiles('cut')).subarray(0, 60), 502, 'invalid_module_archive'],
    [
      'a tar with a bad header',
      () => tarGz([{ path: 'package/module.json', body: manifest('hdr') }]).fill(7, 30, 40),
      502,
      'invalid_module_archive',
    ],
    ['an empty archive', () => tarGz([]), 502, 'invalid_module_archive'],
    [
      'a path climbing out with ..',
      () => tarGz([...moduleFiles('climb'), { path: 'package/../../escaped.mjs', body: 'pwned' }]),
      502,
      'invalid_module_archive',
    ],
    [
      'an absolute path',
      () => tarGz([...moduleFiles('absolute'), { path: '/tmp/cyrnel-escaped.mjs', body: 'pwned' }]),
      502,
      'invalid_module_archive',
    ],
    [
      'a symbolic link',
      () => tarGz([...moduleFiles('symlink'), { path: 'package/secrets', type: '2', linkname: '/etc' }]),
      502,
      'invalid_module_archive',
    ],
    [
      'a hard link',
      () =>
        tarGz([...moduleFiles('hardlink'), { path: 'package/passwd', type: '1', linkname: '/etc/passwd' }]),
      502,
      'invalid_module_archive',
    ],
    [
      'a FIFO',
      () => tarGz([...moduleFiles('fifo'), { path: 'package/pipe', type: '6' }]),
      502,
      'invalid_module_archive',
    ],
    [
      'a file claiming more bytes than any module may unpack to',
      () =>
        tarGz(
          [
            ...moduleFiles('huge'),
            { path: 'package/huge.bin', size: 300 * 1024 * 1024, body: 'x'.repeat(512) },
          ],
          {
            end: false,
          },
        ),
      413,
      'payload_too_large',
    ],
    [
      'more files than a module may have',
      () =>
        tarGz([
          ...moduleFiles('many'),
          ...Array.from({ length: 10_001 }, (_, i) => ({ path: `package/f/${i}`, body: '' })),
        ]),
      413,
      'payload_too_large',
    ],
    [
      'no module.json',
      () => tarGz(moduleFiles('nomanifest').filter((entry) => !entry.path.endsWith('module.json'))),
      502,
      'invalid_module_archive',
    ],
    [
      'a module.json that is not JSON',
      () =>
        tarGz([
          { path: 'package/module.json', body: '{ nope' },
          { path: 'package/index.mjs', body: ADAPTER },
        ]),
      502,
      'invalid_module_archive',
    ],
    [
      'a module.json naming a main file that is not there',
      () => tarGz([{ path: 'package/module.json', body: manifest('nomain', 'missing.mjs') }]),
      502,
      'invalid_module_archive',
    ],
    [
      'a main file that does not parse',
      () =>
        tarGz([
          { path: 'package/module.json', body: manifest('badmain') },
          { path: 'package/index.mjs', body: 'export default {' },
        ]),
      502,
      'invalid_module_archive',
    ],
    [
      'a main file that throws when loaded',
      () =>
        tarGz([
          { path: 'package/module.json', body: manifest('throws') },
          { path: 'package/index.mjs', body: "throw new Error('no');" },
        ]),
      502,
      'invalid_module_archive',
    ],
    [
      // Files are on the disk when the file system refuses a name it cannot hold.
      'a name the file system cannot hold, after other files were unpacked',
      () =>
        tarGz([
          ...moduleFiles('longname'),
          longPath(`package/${'n'.repeat(300)}.mjs`),
          { path: 'package/x', body: 'y' },
        ]),
      502,
      'invalid_module_archive',
    ],
  ];

  for (const [what, tarball, status, reason] of cases) {
    it(`refuses ${what} (${status} ${reason})`, async () => {
      const name = `cyrnel-${what.replaceAll(/[^a-z]+/g, '-')}`.slice(0, 60).replace(/-$/, '');
      const answer = await install(name, tarball());
      expect({ status: answer.status, reason: answer.body.reason }).toEqual({ status, reason });
      expect(answer.body.error).toEqual(expect.any(String));
      expect(await leftovers()).toEqual([]);
    });
  }

  it('refuses a small archive that inflates to more than a module may be, without inflating it all', async () => {
    // 300 MiB of zeros gzip to about 300 KiB: under the download cap, far over the unpacked one.
    const gzip = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gzip.on('data', (part: Buffer) => parts.push(part));
    const zeros = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 300; i++) if (!gzip.write(zeros)) await once(gzip, 'drain');
    gzip.end();
    await once(gzip, 'end');
    const bomb = Buffer.concat(parts);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const answer = await install('cyrnel-zeros', bomb);
    expect({ status: answer.status, reason: answer.body.reason }).toEqual({
      status: 413,
      reason: 'payload_too_large',
    });
    expect(await leftovers()).toEqual([]);
  });

  it('refuses a download that fails or is too large, and a tarball that does not match its integrity', async () => {
    publishNpm(registry, 'cyrnel-gone', '1.0.0', tarGz(moduleFiles('gone')));
    registry.files.delete('/npm/-/cyrnel-gone-1.0.0.tgz');
    const gone = await api('POST', '/modules/install', { source: 'cyrnel-gone' });
    expect({ status: gone.status, reason: gone.body.reason }).toEqual({
      status: 502,
      reason: 'upstream_failed',
    });

    const big = Buffer.alloc(2 * 1024 * 1024, 1);
    const tooLarge = await install('cyrnel-too-large', big);
    expect({ status: tooLarge.status, reason: tooLarge.body.reason }).toEqual({
      status: 413,
      reason: 'payload_too_large',
    });

    publishNpm(registry, 'cyrnel-tampered', '1.0.0', tarGz(moduleFiles('tampered')));
    registry.files.set('/npm/-/cyrnel-tampered-1.0.0.tgz', tarGz(moduleFiles('other')));
    const tampered = await api('POST', '/modules/install', { source: 'cyrnel-tampered' });
    expect({ status: tampered.status, reason: tampered.body.reason }).toEqual({
      status: 502,
      reason: 'integrity_mismatch',
    });
    expect(await leftovers()).toEqual([]);
  });

  it('still installs a sound module afterwards, and nothing else is in the modules directory', async () => {
    const answer = await install('cyrnel-sound', tarGz(moduleFiles('sound')));
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ id: 'sound', enabled: false });
    expect((await readdir(join(dir.path, 'modules'))).sort()).toEqual(['.versions', 'sound']);
    const versions = await readdir(join(dir.path, 'modules', '.versions'));
    expect(versions).toHaveLength(1);
    const modules = await api('GET', '/modules?isBuiltin=false');
    expect(modules.body.items.map((module: Json) => module.id)).toEqual(['sound']);
  });

  it('refuses an update whose archive fails, keeping the installed version and nothing else', async () => {
    const versions = () => readdir(join(dir.path, 'modules', '.versions'));
    const before = await versions();
    expect(before).toHaveLength(1);
    const broken: readonly (readonly [string, Buffer, number, string])[] = [
      [
        '1.1.0',
        tarGz([...moduleFiles('sound'), { path: 'package/../../escaped.mjs', body: 'pwned' }]),
        502,
        'invalid_module_archive',
      ],
      [
        '1.2.0',
        tarGz([
          { path: 'package/module.json', body: manifest('sound') },
          { path: 'package/index.mjs', body: 'export default {' },
        ]),
        502,
        'invalid_module_archive',
      ],
      ['1.3.0', tarGz(moduleFiles('renamed')), 502, 'invalid_module_archive'],
    ];
    for (const [version, tarball, status, reason] of broken) {
      publishNpm(registry, 'cyrnel-sound', version, tarball);
      const answer = await api('POST', '/modules/sound/update');
      expect({ version, status: answer.status, reason: answer.body.reason }).toEqual({
        version,
        status,
        reason,
      });
      expect(await versions()).toEqual(before);
      expect((await readdir(join(dir.path, 'modules'))).sort()).toEqual(['.versions', 'sound']);
    }
    expect((await api('GET', '/modules/sound')).body).toMatchObject({
      id: 'sound',
      origin: { version: '1.0.0' },
    });
  });
});
