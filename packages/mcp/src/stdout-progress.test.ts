import { describe, expect, it } from 'vitest';
import { createStdoutProgress } from './stdout-progress';

/** A progress whose notifications are kept, with a pace of `intervalMs`. */
function kept(options: { maxLineChars?: number; intervalMs?: number; maxQueuedLines?: number } = {}) {
  const sent: { progress: number; message: string }[] = [];
  const progress = createStdoutProgress((value, message) => void sent.push({ progress: value, message }), {
    maxLineChars: options.maxLineChars ?? 200,
    intervalMs: options.intervalMs ?? 0,
    maxQueuedLines: options.maxQueuedLines ?? 50,
  });
  return { sent, progress };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('createStdoutProgress', () => {
  it('sends each line once it is whole, with how many lines the run printed up to it', async () => {
    const { sent, progress } = kept();
    progress.push('step 1\nste');
    await turn();
    expect(sent).toEqual([{ progress: 1, message: 'step 1' }]);
    progress.push('p 2\r\nstep 3\n');
    await turn();
    await turn();
    expect(sent.map((item) => item.message)).toEqual(['step 1', 'step 2', 'step 3']);
    expect(sent.map((item) => item.progress)).toEqual([1, 2, 3]);
  });

  it('cuts long lines, also one that never ends', () => {
    const { sent, progress } = kept({ maxLineChars: 5 });
    progress.push(`${'x'.repeat(10)}\n`);
    progress.push('y'.repeat(1_000_000));
    progress.end();
    expect(sent.map((item) => item.message)).toEqual(['[1 line skipped] yyyyy…']);
    expect(sent[0]?.progress).toBe(2);
  });

  it('drops what piles up beyond the backlog and says how much, the last line kept', () => {
    const { sent, progress } = kept({ intervalMs: 60_000, maxQueuedLines: 3 });
    for (let i = 1; i <= 10; i++) progress.push(`line ${i}\n`);
    progress.end();
    expect(sent).toEqual([{ progress: 10, message: '[9 lines skipped] line 10' }]);
  });

  it('paces notifications: after one, the next waits its turn; the end sends the last with what was skipped', async () => {
    const { sent, progress } = kept({ intervalMs: 60_000 });
    progress.push('a\nb\nc\n');
    expect(sent).toEqual([]);
    await turn();
    expect(sent).toEqual([{ progress: 1, message: 'a' }]);
    progress.end();
    expect(sent).toEqual([
      { progress: 1, message: 'a' },
      { progress: 3, message: '[1 line skipped] c' },
    ]);
  });

  it('sends the last partial line at the end, and nothing after it', () => {
    const { sent, progress } = kept();
    progress.push('no newline');
    progress.end();
    progress.push('late\n');
    progress.end();
    expect(sent).toEqual([{ progress: 1, message: 'no newline' }]);
  });
});
