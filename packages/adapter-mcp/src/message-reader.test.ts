import { describe, expect, it } from 'vitest';
import { createMessageReader } from './message-reader';

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const line = (message: unknown) => `${JSON.stringify(message)}\n`;

/** A reader whose lines are parsed and whose oversized lines are recorded. */
function recording(maxLineBytes: number) {
  const lines: unknown[] = [];
  const oversized: { head: string; tail: string; bytes: number }[] = [];
  const reader = createMessageReader(maxLineBytes, {
    line: (pieces) => lines.push(JSON.parse(Buffer.concat(pieces).toString('utf8'))),
    oversized: (head, tail, bytes) => oversized.push({ head, tail, bytes }),
  });
  return { reader, lines, oversized };
}

describe('createMessageReader', () => {
  it('hands over each line once it ends, however the chunks cut the stream', () => {
    const { reader, lines } = recording(1024);
    const text = line(ping(1)) + line(ping(2)).replace('\n', '\r\n') + line(ping(3));
    for (const cut of [5, 30, 31, 70]) {
      lines.length = 0;
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length; at += cut) reader.append(bytes.subarray(at, at + cut));
      expect(lines).toEqual([ping(1), ping(2), ping(3)]);
    }
  });

  it('skips a line past the bound, split or not, keeping its ends, and reads the next one afresh', () => {
    const { reader, lines, oversized } = recording(64);
    reader.append(Buffer.from(`{"result":"${'x'.repeat(40)}`));
    reader.append(Buffer.from('x'.repeat(4000)));
    reader.append(Buffer.from(`","jsonrpc":"2.0","id":7}\n${line(ping(4))}`));
    reader.append(Buffer.from(`${'y'.repeat(70)}\n`));
    reader.append(Buffer.from(line(ping(5))));
    expect(lines).toEqual([ping(4), ping(5)]);
    expect(oversized).toHaveLength(2);
    expect(oversized[0]).toMatchObject({ bytes: 4076, head: expect.stringMatching(/^\{"result":"x/) });
    expect(oversized[0]?.tail.endsWith('"jsonrpc":"2.0","id":7}')).toBe(true);
    expect(oversized[1]?.bytes).toBe(70);
  });
});
