import { PassThrough } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createStdioTransport } from './stdio-transport';

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers read off the wire.
type Json = any;

/** A real SDK server on in-memory stdio: lines in, the answers' lines out. */
function connection(options: { maxLineBytes?: number } = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let rest = '';
  stdout.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    for (let end = rest.indexOf('\n'); end !== -1; end = rest.indexOf('\n')) {
      const line = rest.slice(0, end);
      rest = rest.slice(end + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const handle = serveStdio(
    () => {
      const server = new McpServer({ name: 'stdio-test', version: '1.0.0' });
      server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
        content: [{ type: 'text', text }],
      }));
      return server;
    },
    { transport: createStdioTransport({ stdin, stdout, ...options }) },
  );
  return {
    send: (line: string) => stdin.write(`${line}\n`),
    next: (): Promise<Json> => {
      const line = lines.shift();
      const read =
        line !== undefined ? Promise.resolve(line) : new Promise<string>((resolve) => waiting.push(resolve));
      return read.then((text) => JSON.parse(text));
    },
    close: () => handle.close(),
  };
}

const initialize = (id: number, protocolVersion: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

describe('createStdioTransport', () => {
  const open: ReturnType<typeof connection>[] = [];
  const connect = (options?: { maxLineBytes?: number }) => {
    const opened = connection(options);
    open.push(opened);
    return opened;
  };
  afterEach(async () => {
    for (const opened of open.splice(0)) await opened.close();
  });

  it('answers a line that is not JSON with a parse error (id null), and what is not JSON-RPC with -32600', async () => {
    const wire = connect();
    wire.send('this is not json');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the line is not JSON' },
    });
    wire.send('{"id":5,"method":7}');
    expect(await wire.next()).toMatchObject({ id: 5, error: { code: -32600 } });
    wire.send('42');
    expect(await wire.next()).toMatchObject({ id: null, error: { code: -32600 } });
    // The connection goes on.
    wire.send(initialize(1, '2025-06-18'));
    expect(await wire.next()).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
  });

  it('answers invalid params -32602 in one line, and a line too long -32600 without losing the next', async () => {
    const wire = connect({ maxLineBytes: 1000 });
    wire.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
    expect(await wire.next()).toMatchObject({
      id: 1,
      error: {
        code: -32602,
        message: 'Invalid params of initialize: protocolVersion: expected string, received undefined',
      },
    });
    wire.send(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { padding: 'x'.repeat(2000) } }),
    );
    expect(await wire.next()).toMatchObject({
      id: null,
      error: { code: -32600, message: /longer than 1000 bytes/ },
    });
    wire.send(initialize(3, '2025-06-18'));
    expect(await wire.next()).toMatchObject({ id: 3, result: {} });
    wire.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 'page-2' } }));
    expect(await wire.next()).toMatchObject({ id: 4, error: { code: -32602, message: /cursor/ } });
  });

  it('answers a batch of a 2025-03-26 connection with one array, and refuses batches elsewhere', async () => {
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { jsonrpc: '2.0', id: 'c', method: 'resources/read', params: {} },
    ]);
    const early = connect();
    early.send(batch);
    expect(await early.next()).toMatchObject({
      id: null,
      error: { code: -32600, message: /only after initialize/ },
    });

    const batching = connect();
    batching.send(initialize(1, '2025-03-26'));
    expect(await batching.next()).toMatchObject({ id: 1, result: { protocolVersion: '2025-03-26' } });
    batching.send(batch);
    const answers: Json[] = await batching.next();
    expect(answers.map((answer) => answer.id).sort()).toEqual(['a', 'b', 'c']);
    expect(answers.find((answer) => answer.id === 'b').result.content).toEqual([
      { type: 'text', text: 'hi' },
    ]);
    expect(answers.find((answer) => answer.id === 'c').error.code).toBe(-32602);

    const later = connect();
    later.send(initialize(1, '2025-06-18'));
    await later.next();
    later.send(batch);
    expect(await later.next()).toMatchObject({
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request: JSON-RPC batches are not supported in protocol version 2025-06-18',
      },
    });
  });
});
