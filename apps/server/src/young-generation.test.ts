import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keepYoungGenerationSmallWhileStarting } from './young-generation';

const MODULE = fileURLToPath(new URL('./young-generation.ts', import.meta.url));

// In a fresh process: the young generation's size (MB) after keeping 40 MB of objects alive
// (what a start's module loading does), with the growth held (unless HOLD=0), then after release().
const PROGRAM = `
import { getHeapSpaceStatistics } from 'node:v8';
const { keepYoungGenerationSmallWhileStarting } = await import(${JSON.stringify(MODULE)});
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
const keep = [];
const survive = () => { for (let i = 0; i < 400_000; i++) keep.push({ i, s: 'x' + i }); };
const release = process.env.HOLD === '0' ? () => {} : keepYoungGenerationSmallWhileStarting();
const before = newSpace();
survive();
const held = newSpace();
release();
survive();
console.log(JSON.stringify({ before, held, released: newSpace() }));
`;

describe('keepYoungGenerationSmallWhileStarting', () => {
  it('keeps the young generation small while held, and lets it grow after release', () => {
    const run = (hold: boolean) =>
      JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', PROGRAM], {
          encoding: 'utf8',
          env: { ...process.env, NODE_OPTIONS: '', HOLD: hold ? '1' : '0' },
        }),
      ) as { before: number; held: number; released: number };
    // The same program without the hold, in the same test: the size the objects grow it to
    // (16–32 MB; V8's own steps, which a busy machine shifts).
    const grown = run(false).held;
    const { held, released } = run(true);
    // Held: near the initial size (2.75–4 MB seen, 6 MB once on a busy machine), a fraction of
    // what it grows to unheld; released, it grows again (V8 doubles it per step: 16–64 MB seen).
    expect(held).toBeLessThanOrEqual(grown / 2);
    expect(released).toBeGreaterThanOrEqual(2 * held);
  });

  it('sets the growth factor to 1 and back to V8 default once, and leaves an operator’s flags alone', () => {
    const set: string[] = [];
    const release = keepYoungGenerationSmallWhileStarting({
      execArgv: ['--no-node-snapshot'],
      nodeOptions: '',
      setFlags: (flags) => set.push(flags),
    });
    expect(set).toEqual(['--semi-space-growth-factor=1']);
    release();
    release();
    expect(set).toEqual(['--semi-space-growth-factor=1', '--semi-space-growth-factor=2']);
    const untouched: string[] = [];
    for (const given of [
      { execArgv: ['--max-semi-space-size=64'], nodeOptions: '' },
      { execArgv: [], nodeOptions: '--semi-space-growth-factor=4' },
      { execArgv: ['--min_semi_space_size=2'], nodeOptions: '' },
    ]) {
      keepYoungGenerationSmallWhileStarting({ ...given, setFlags: (flags) => untouched.push(flags) })();
    }
    expect(untouched).toEqual([]);
  });
});
