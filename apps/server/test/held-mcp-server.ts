import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * An MCP server over Streamable HTTP on 127.0.0.1, written against the protocol itself so a test
 * controls when it answers: while `hold()` is in force, each `initialize` waits until `release()`
 * (or `close()`). One tool, `echo`, answering its arguments as text. No sessions: every request
 * stands alone, and `GET` (the optional event stream) is 405.
 */
export interface HeldMcpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** From now on, hold every `initialize` until `release()`. */
  hold(): void;
  /** Answer the held `initialize` requests, and answer the next ones at once. */
  release(): void;
  /** How many `initialize` requests arrived since the server started (held or not). */
  initializes(): number;
  /** How many `initialize` requests wait now. */
  held(): number;
  close(): Promise<void>;
}

/** Start a {@link HeldMcpServer} named `name` (its `serverInfo.name`). */
export async function startHeldMcpServer(name = 'held'): Promise<HeldMcpServer> {
  let holding = false;
  let initializes = 0;
  const waiting: (() => void)[] = [];
  const answer = (response: ServerResponse, id: unknown, result: unknown) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id?: unknown;
      method: string;
      params?: { protocolVersion?: string; arguments?: unknown };
    };
    switch (message.method) {
      case 'initialize':
        initializes++;
        if (holding) await new Promise<void>((resolve) => waiting.push(resolve));
        if (response.destroyed) return;
        return answer(response, message.id, {
          protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name, version: '1.0.0' },
        });
      case 'tools/list':
        return answer(response, message.id, {
          tools: [{ name: 'echo', description: 'Answers its arguments', inputSchema: { type: 'object' } }],
        });
      case 'tools/call':
        return answer(response, message.id, {
          content: [{ type: 'text', text: JSON.stringify(message.params?.arguments ?? {}) }],
        });
      default:
        // Notifications (`notifications/initialized`, cancellations): accepted, nothing to answer.
        if (message.id === undefined) {
          response.writeHead(202).end();
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'not found' } }),
        );
    }
  };
  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const release = () => {
    holding = false;
    for (const resolve of waiting.splice(0)) resolve();
  };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    hold: () => {
      holding = true;
    },
    release,
    initializes: () => initializes,
    held: () => waiting.length,
    close: async () => {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
