import { describe, expect, it } from 'vitest';
import { parseSse, type SseMessage } from '../src/sse-parser';

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function collect(chunks: (string | Uint8Array)[]): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of parseSse(streamOf(chunks))) messages.push(message);
  return messages;
}

describe('parseSse', () => {
  it('parses named events and skips heartbeat comments', async () => {
    const messages = await collect([': heartbeat\n\nevent: state\ndata: {"state":"running"}\n\n']);
    expect(messages).toEqual([
      { event: 'state', data: '{"state":"running"}', id: undefined, retry: undefined },
    ]);
  });

  it('joins multi-line data, defaults the event name and keeps id and retry', async () => {
    const messages = await collect(['id: 7\nretry: 1500\ndata: a\ndata:b\n\n']);
    expect(messages).toEqual([{ event: 'message', data: 'a\nb', id: '7', retry: 1500 }]);
  });

  it('handles CRLF and CR line ends split across chunks', async () => {
    const messages = await collect(['event: stdout\r', '\ndata: one\r\r', 'event: exit\rdata: two\r\n\r\n']);
    expect(messages.map((m) => [m.event, m.data])).toEqual([
      ['stdout', 'one'],
      ['exit', 'two'],
    ]);
  });

  it('reassembles a UTF-8 sequence split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: {"text":"é€🙂"}\n\n');
    const messages = await collect([bytes.slice(0, 15), bytes.slice(15, 17), bytes.slice(17)]);
    expect(JSON.parse(messages[0]?.data ?? '')).toEqual({ text: 'é€🙂' });
  });

  it('drops events without data and an unterminated last event', async () => {
    const messages = await collect(['event: state\n\ndata: kept\n\ndata: cut']);
    expect(messages.map((m) => m.data)).toEqual(['kept']);
  });
});
