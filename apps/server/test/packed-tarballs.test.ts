import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create } from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runModuleCommand } from '../src/module-init';
import { packedTarballs } from '../src/packed-tarballs';
import { tempDir } from './helpers';
import { tarGz } from './tar-builder';

let dir: { path: string; remove(): Promise<void> };
let folder: string;

/** An npm tarball of `name@version` in `folder`, as `npm pack` lays it out (`package/…`). */
async function packed(
  name: string,
  version: string,
  dependencies: Record<string, string> = {},
  file?: string,
) {
  const source = join(dir.path, 'sources', `${name.replace('/', '+')}-${version}`);
  mkdirSync(join(source, 'package', 'dist'), { recursive: true });
  // A name longer than a tar header holds comes before the manifest (a pax header in the archive).
  writeFileSync(join(source, 'package', 'dist', `${'a-long-chunk-name-'.repeat(8)}.js`), 'export {};\n');
  writeFileSync(join(source, 'package', 'package.json'), JSON.stringify({ name, version, dependencies }));
  const target = join(folder, file ?? `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
  await create({ gzip: true, cwd: source, file: target, portable: true }, [
    'package/dist',
    'package/package.json',
  ]);
  return target;
}

beforeEach(async () => {
  dir = await tempDir('cyrnel-packed-');
  folder = join(dir.path, 'dist-packages');
  mkdirSync(folder);
});
afterEach(async () => {
  await dir.remove();
});

describe('packedTarballs', () => {
  it('finds the named packages and those of the folder they depend on, by their manifests', async () => {
    const sdk = await packed('@cyrnel/sdk', '0.1.0');
    const core = await packed('@cyrnel/core', '0.1.0', { '@cyrnel/sdk': '^0.1.0' });
    // Named as no tool would name it: the manifest inside says what it is.
    const testing = await packed(
      '@cyrnel/testing',
      '0.2.0',
      { '@cyrnel/sdk': '^0.1.0', '@cyrnel/core': '^0.1.0', 'oidc-provider': '9.13.3' },
      'renamed.tgz',
    );
    await packed('@cyrnel/server', '0.1.0', { '@cyrnel/core': '^0.1.0' });
    writeFileSync(join(folder, 'not-a-tarball.tgz'), 'plain text');
    writeFileSync(join(folder, 'no-manifest.tgz'), tarGz([{ path: 'package/README.md', body: '# hi' }]));
    expect(Object.fromEntries(packedTarballs(folder, ['@cyrnel/sdk', '@cyrnel/testing']))).toEqual({
      '@cyrnel/sdk': sdk,
      '@cyrnel/testing': testing,
      '@cyrnel/core': core,
    });
  });

  it('names what is missing, what is doubled, and a folder that is none', async () => {
    await packed('@cyrnel/sdk', '0.1.0');
    expect(() => packedTarballs(folder, ['@cyrnel/sdk', '@cyrnel/testing'])).toThrow(
      `${folder} holds no tarball of @cyrnel/testing (scripts/pack.sh writes them)`,
    );
    await packed('@cyrnel/sdk', '0.0.9');
    expect(() => packedTarballs(folder, ['@cyrnel/sdk'])).toThrow(
      `${folder} holds 2 tarballs of @cyrnel/sdk (cyrnel-sdk-0.0.9.tgz, cyrnel-sdk-0.1.0.tgz): keep one`,
    );
    expect(() => packedTarballs(join(folder, 'cyrnel-sdk-0.1.0.tgz'), ['@cyrnel/sdk'])).toThrow(
      'is not a folder',
    );
  });
});

describe('module init --from', () => {
  it('writes file: dependencies on the tarballs of the folder', async () => {
    const sdk = await packed('@cyrnel/sdk', '0.1.0');
    const testing = await packed('@cyrnel/testing', '0.1.0', { '@cyrnel/sdk': '^0.1.0' });
    const target = join(dir.path, 'echo-tools');
    expect(await runModuleCommand(['init', target, '--type', 'adapter', '--from', folder])).toBe(0);
    const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    expect(manifest.devDependencies).toEqual({
      '@cyrnel/sdk': `file:${sdk}`,
      '@cyrnel/testing': `file:${testing}`,
      vitest: '^5.1.1',
      typescript: '^5.9.3',
    });
    expect(readFileSync(join(target, 'README.md'), 'utf8')).toContain(`from the tarballs in \`${folder}\``);
  });

  it('is in the usage `module init --help` prints (exit 0)', async () => {
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
    try {
      expect(await runModuleCommand(['init', '--help'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(written.join('')).toContain('--from <tarballs>');
  });

  it('writes version ranges without it, and refuses a folder without the tarballs (exit 1, nothing written)', async () => {
    const plain = join(dir.path, 'plain-env');
    expect(await runModuleCommand(['init', plain, '--type', 'environment'])).toBe(0);
    const manifest = JSON.parse(readFileSync(join(plain, 'package.json'), 'utf8'));
    expect(manifest.devDependencies['@cyrnel/sdk']).toMatch(/^\^\d+\.\d+\.\d+/);
    const refused = join(dir.path, 'refused');
    expect(await runModuleCommand(['init', refused, '--type', 'environment', '--from', folder])).toBe(1);
    expect(() => readFileSync(join(refused, 'package.json'))).toThrow();
  });
});
