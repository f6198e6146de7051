import type { ServerResponse } from 'node:http';
import type { LogLine } from '@cyrnel/sdk/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../src/index';
import { sendJson, startWireServer, type WireServer } from './wire-server';

let server: WireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const line = (seq: number): LogLine => ({
  seq,
  time: '2025-01-01T00:00:00.000Z',
  level: 'info',
  msg: `line ${seq}`,
  component: 'core',
  processId: null,
  fields: {},
});

function writeLines(res: ServerResponse, seqs: number[]): void {
  for (const seq of seqs) res.write(`event: log\nid: ${seq}\ndata: ${JSON.stringify(line(seq))}\n\n`);
}

describe('logs', () => {
  it('lists with the query the server reads', async () => {
    server = await startWireServer((_req, res) => sendJson(res, 200, { items: [line(1)], capacity: 10 }));
    const client = createClient({ baseUrl: server.baseUrl });
    expect(await client.logs.list({ level: 'warn', component: 'http', processId: 4, tail: 5 })).toEqual({
      items: [line(1)],
      capacity: 10,
    });
    expect(server.seen[0]?.url).toBe('/logs?level=warn&component=http&processId=4&tail=5');
  });

  it('follows, and after a drop resumes after the last line it yielded', async () => {
    let connections = 0;
    server = await startWireServer((_req, res) => {
      connections += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 10\n\n');
      if (connections === 1) {
        writeLines(res, [1, 2]);
        setTimeout(() => res.destroy(), 20);
      } else {
        // A server that repeats a line the client has: it is skipped.
        writeLines(res, [2, 3, 4]);
      }
    });
    const controller = new AbortController();
    const seen: number[] = [];
    const client = createClient({ baseUrl: server.baseUrl });
    await expect(
      (async () => {
        for await (const next of client.logs.follow({ component: 'core' }, { signal: controller.signal })) {
          seen.push(next.seq);
          if (next.seq === 4) controller.abort(new Error('enough'));
        }
      })(),
    ).rejects.toThrow('enough');
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(server.seen.map((request) => request.url)).toEqual([
      '/logs?component=core&follow=true',
      '/logs?component=core&after=2&follow=true',
    ]);
    expect(server.seen[0]?.headers.accept).toBe('text/event-stream');
  });
});
