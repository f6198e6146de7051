import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers';

const run = promisify(execFile);
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

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

  it('stops the server (launcher and main) with one line naming the version it needs', async () => {
    for (const entry of [
      ['cli.js', '--version'],
      ['--no-node-snapshot', 'main.js', '--version'],
    ]) {
      const args = entry.map((part) => (part.endsWith('.js') ? join(DIST, part) : part));
      expect(await outcome(args)).toEqual({
        code: 1,
        stdout: '',
        stderr: 'cyrnel-server needs Node.js 24 or newer; this is v20.11.0.\n',
      });
    }
  });

  it('stops the examples the same way instead of exiting silently', async () => {
    const result = await outcome([join(EXAMPLES, 'upstream.mjs')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^cyrnel's examples need Node\.js 24 or newer; this is v20\.11\.0\./);
  });
});
