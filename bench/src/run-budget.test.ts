import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RUN = fileURLToPath(new URL('./run.ts', import.meta.url));

/** Runs `node src/run.ts ...args` to its end: exit code, stdout and stderr. */
function bench(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', RUN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('pnpm bench --quick with a time budget that runs out', () => {
  it('stops, reports the rows it reached with a warning, and exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cyrnel-bench-budget-'));
    try {
      // Far too little for a quick run (about 110 s): the budget runs out in the first parts.
      const { code, stdout, stderr } = await bench(['--quick', '--budget-ms', '3000', '--results-dir', dir]);
      expect(code, `stderr: ${stderr}`).toBe(0);
      expect(stderr).toMatch(/warning: the time budget of 3 s ran out/);
      const json = JSON.parse(await readFile(join(dir, 'quick.json'), 'utf8')) as {
        mode: string;
        rows: { metric: string }[];
        skips: unknown[];
        cut?: string;
        notes: string[];
      };
      expect(json.mode).toBe('quick');
      expect(json.cut).toMatch(/ran out: the run was cut short, the rows are those it reached/);
      expect(json.notes.some((note) => note.startsWith('warning: the time budget'))).toBe(true);
      // Whatever it reached is reported, in the table as in the file; a cut is not a failure.
      expect(json.skips).toEqual([]);
      for (const row of json.rows) expect(stdout).toContain(row.metric);
      const markdown = await readFile(join(dir, 'quick.md'), 'utf8');
      expect(markdown).toContain('warning: the time budget of 3 s ran out');
      expect(stdout).toContain(`results written to ${dir}/quick.json`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
