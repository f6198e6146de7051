import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareDataDir } from './prepare-data-dir';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('prepareDataDir', () => {
  it('creates a missing data directory 0700, whatever the umask allowed', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cyrnel-dir-'));
    roots.push(root);
    const warnings: unknown[] = [];
    await prepareDataDir(join(root, 'a', 'data'), { warn: (...args) => warnings.push(args) });
    expect(await modeOf(join(root, 'a', 'data'))).toBe(0o700);
    expect(warnings).toEqual([]);
  });

  it('leaves an existing directory as it is, warning when others can reach it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cyrnel-dir-'));
    roots.push(root);
    const dir = join(root, 'data');
    await mkdir(dir);
    await chmod(dir, 0o755);
    const warnings: unknown[][] = [];
    await prepareDataDir(dir, { warn: (...args) => warnings.push(args) });
    expect(await modeOf(dir)).toBe(0o755);
    expect(warnings).toEqual([[expect.stringContaining('chmod 700'), { dataDir: dir, mode: '0755' }]]);
    await chmod(dir, 0o700);
    await prepareDataDir(dir, { warn: (...args) => warnings.push(args) });
    expect(warnings).toHaveLength(1);
  });
});
