import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createMessageReader } from './message-reader';

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' }) as JSONRPCMessage;
const line = (message: JSONRPCMessage) => `${JSON.stringify(message)}\n`;

describe('createMessageReader', () => {
  it('hands over each line once it ends, however the chunks cut the stream', () => {
    const reader = createMessageReader(1024);
    const seen: JSONRPCMessage[] = [];
    const text = line(ping(1)) + line(ping(2)).replace('\n', '\r\n') + line(ping(3));
    for (const cut of [5, 30, 31, 70]) {
      seen.length = 0;
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length; at += cut)
        reader.append(bytes.subarray(at, at + cut), (m) => seen.push(m));
      expect(seen).toEqual([ping(1), ping(2), ping(3)]);
    }
  });

  it('refuses a line past the bound, split or not, and reads the next one afresh', () => {
    const reader = createMessageReader(64);
    const seen: JSONRPCMessage[] = [];
    expect(() => reader.append(Buffer.from('x'.repeat(40)), (m) => seen.push(m))).not.toThrow();
    expect(() => reader.append(Buffer.from('x'.repeat(40)), (m) => seen.push(m))).toThrow(
      'a message from the MCP server is larger than 64 bytes',
    );
    expect(() => reader.append(Buffer.from(`${'y'.repeat(70)}\n`), (m) => seen.push(m))).toThrow(
      'larger than 64',
    );
    reader.append(Buffer.from(line(ping(4))), (m) => seen.push(m));
    expect(seen).toEqual([ping(4)]);
  });

  it('refuses a line that is not a JSON-RPC message', () => {
    const reader = createMessageReader(1024);
    expect(() => reader.append(Buffer.from('{"no":1}\n'), () => {})).toThrow();
  });
});
