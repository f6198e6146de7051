import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUIRED_NODE_MAJOR } from '../src/require-node';
import { tempDir } from './helpers';

const run = promisify(execFile);
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
/** The package's preinstall check, plain CommonJS for any Node.js. */
const CHECK = fileURLToPath(new URL('../check-node.cjs', import.meta.url));
const check = createRequire(import.meta.url)(CHECK) as {
  REQUIRED_NODE_MAJOR: number;
  nodeVersionProblem(version: string): string | null;
};

describe('an unsupported Node.js', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let preload: string;

  beforeAll(async () => {
    dir = await tempDir();
    // This Node, reporting itself as 20: what the checks read.
    preload = join(dir.path, 'node20.mjs');
    await writeFile(
      preload,
      "Object.defineProperty(process.versions, 'node', { value: '20.11.0' });\n" +
        "Object.defineProperty(process, 'version', { value: 'v20.11.0' });\n",
    );
  });
  afterAll(async () => {
    await dir?.remove();
  });

  const outcome = (args: string[]) =>
    run(process.execPath, ['--import', preload, ...args], { timeout: 20_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: error.stdout,
        stderr: error.stderr,
      }),
    );

  it('stops the server (the bin and main.js) with one line naming the version it needs', async () => {
    for (const entry of [
      ['cli.js', '--version'],
      ['main.js', '--version'],
    ]) {
      const args = entry.map((part) => (part.endsWith('.js') ? join(DIST, part) : part));
      expect(await outcome(args)).toEqual({
        code: 1,
        stdout: '',
        stderr: 'cyrnel needs Node.js 24 or newer; this is v20.11.0.\n',
      });
    }
  });

  it('stops the examples the same way instead of exiting silently', async () => {
    const result = await outcome([join(EXAMPLES, 'upstream.mjs')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^cyrnel's examples need Node\.js 24 or newer; this is v20\.11\.0\./);
  });

  it('stops an install before anything is built: the preinstall check says which Node.js it needs', async () => {
    const result = await outcome([CHECK]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^cyrnel needs Node\.js 24 or newer; this is v20\.11\.0\. \(.+\)\nInstall Node\.js 24 or newer .*Node\.js 20\.\n$/,
    );
  });
});

describe('the preinstall check', () => {
  it('passes this Node.js without a word', async () => {
    const { stdout, stderr } = await run(process.execPath, [CHECK], { timeout: 20_000 });
    expect({ stdout, stderr }).toEqual({ stdout: '', stderr: '' });
  });

  it('names the versions it refuses and lets 24 and later through', () => {
    expect(check.nodeVersionProblem('v20.11.0')).toBe('cyrnel needs Node.js 24 or newer; this is v20.11.0.');
    expect(check.nodeVersionProblem('v23.11.1')).toBe('cyrnel needs Node.js 24 or newer; this is v23.11.1.');
    expect(check.nodeVersionProblem('v18.0.0')).toMatch(/^cyrnel needs Node\.js 24/);
    expect(check.nodeVersionProblem('v24.0.0')).toBeNull();
    expect(check.nodeVersionProblem('v25.2.1')).toBeNull();
  });

  it("is the package's preinstall, ships in it, and agrees with the binary's check and engines", async () => {
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
      files: string[];
      engines: { node: string };
    };
    expect(manifest.scripts.preinstall).toBe('node check-node.cjs');
    expect(manifest.files).toContain('check-node.cjs');
    expect(check.REQUIRED_NODE_MAJOR).toBe(REQUIRED_NODE_MAJOR);
    expect(manifest.engines.node).toBe(`>=${REQUIRED_NODE_MAJOR}`);
  });
});
