import { describe, expect, it } from 'vitest';
import { createTextCapture } from './text-capture';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('createTextCapture', () => {
  it('joins multi-byte sequences split across byte chunks', () => {
    const capture = createTextCapture({ name: 'stdout', maxBytes: 100 });
    const all = bytes('a😀b');
    const visible = [
      capture.write(all.subarray(0, 2)),
      capture.write(all.subarray(2, 4)),
      capture.write(all.subarray(4)),
    ];
    expect(visible).toEqual(['a', '', '😀b']);
    expect(capture.text()).toBe('a😀b');
  });

  it('flushes a dangling sequence as a replacement character', () => {
    const capture = createTextCapture({ name: 'stdout', maxBytes: 100 });
    capture.write(bytes('é').subarray(0, 1));
    expect(capture.write('x')).toBe('\uFFFDx');
    capture.write(bytes('é').subarray(0, 1));
    expect(capture.end()).toBe('\uFFFD');
  });

  it('truncates at a character boundary with a marker and drops the rest', () => {
    const capture = createTextCapture({ name: 'stderr', maxBytes: 5 });
    expect(capture.write('ab')).toBe('ab');
    expect(capture.write('cé€')).toBe('cé\n[cyrnel: stderr truncated at 5 bytes]\n');
    expect(capture.write('more')).toBe('');
    expect(capture.text()).toBe('abcé\n[cyrnel: stderr truncated at 5 bytes]\n');
  });
});
