import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOutputFlush } from '../src/child/output-flush';

describe('the output patches of an execution, merged in the child', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the merge of the patches of a few milliseconds as one, keys in first-seen order', () => {
    const sent: string[] = [];
    const output = createOutputFlush((json) => sent.push(json), { flushMs: 5 });
    output.add([['a', '1']]);
    output.add([
      ['b', '{"x":[1]}'],
      ['a', '3'],
    ]);
    output.add([['__proto__', '"own"']]);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(5);
    expect(sent).toEqual(['[["a",3],["b",{"x":[1]}],["__proto__","own"]]']);
    output.flush();
    expect(sent).toHaveLength(1);
  });

  it('sends no faster than its byte rate, and no later than its longest gap', () => {
    const sent: string[] = [];
    const output = createOutputFlush((json) => sent.push(json), {
      flushMs: 5,
      flushBytes: 1_000_000,
      bytesPerSecond: 10_000,
      maxGapMs: 1_000,
    });
    const big = `"${'x'.repeat(4_990)}"`;
    output.add([['big', big]]);
    vi.advanceTimersByTime(5);
    expect(sent).toHaveLength(1);
    // About 5,000 bytes at 10,000 a second: the next patch waits half a second.
    output.add([['n', '1']]);
    vi.advanceTimersByTime(400);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(150);
    expect(sent).toEqual([sent[0], '[["n",1]]']);
    // A patch far above the rate holds the next one back for the longest gap only.
    output.add([['huge', `"${'y'.repeat(100_000)}"`]]);
    vi.advanceTimersByTime(5);
    output.add([['n', '2']]);
    vi.advanceTimersByTime(1_000);
    expect(sent.at(-1)).toBe('[["n",2]]');
  });

  it('sends at once from its byte threshold when the rate allows, and everything at the end', () => {
    const sent: string[] = [];
    const output = createOutputFlush((json) => sent.push(json), { flushMs: 5, flushBytes: 100 });
    output.add([['text', `"${'z'.repeat(120)}"`]]);
    expect(sent).toHaveLength(1);
    output.add([['later', 'true']]);
    output.flush();
    expect(sent).toEqual([sent[0], '[["later",true]]']);
    output.flush();
    expect(sent).toHaveLength(2);
  });
});
