import { describe, expect, it } from 'vitest';
import { efficiencySentence, formatMs, ratioVerdict } from './efficiency-format';

describe('the efficiency of a run, for people', () => {
  it('labels a ratio: pays off from 10, as cheap as direct calls up to 1, neutral between', () => {
    expect(ratioVerdict(1654.4)).toBe('pays off');
    expect(ratioVerdict(10)).toBe('pays off');
    expect(ratioVerdict(9.99)).toBe('neutral');
    expect(ratioVerdict(1.01)).toBe('neutral');
    expect(ratioVerdict(1)).toBe('direct calls would be as cheap');
    expect(ratioVerdict(0.25)).toBe('direct calls would be as cheap');
    expect(ratioVerdict(null)).toBe('nothing to compare');
  });

  it('prints times in the unit that reads best, and a dash for none', () => {
    expect(formatMs(0.44)).toBe('0.4 ms');
    expect(formatMs(843.2)).toBe('843 ms');
    expect(formatMs(2140)).toBe('2.1 s');
    expect(formatMs(185_000)).toBe('3 min 5 s');
    expect(formatMs(null)).toBe('—');
    expect(formatMs(Number.NaN)).toBe('—');
  });

  it("starts the SDK's sentence with a capital", () => {
    expect(
      efficiencySentence({ toolCalls: 2, toolResultBytes: 463, returnedBytes: 69, wallMs: 80, cpuMs: 12 }),
    ).toBe('This run read 463 B from tools in 2 calls and returned 69 B to the model (6.71× less)');
  });
});
