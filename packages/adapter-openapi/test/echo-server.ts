import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the echo server saw on the wire. */
export interface Echo {
  method: string;
  path: string;
  rawQuery: string;
  headers: Record<string, string | string[] | undefined>;
  cookies: string;
  body: string;
  bodyBase64: string;
}

/** A running echo server on 127.0.0.1. */
export interface EchoServer {
  readonly url: string;
  /** Requests received so far. */
  readonly count: () => number;
  /** `METHOD path` of every request received so far, in order. */
  readonly seen: () => readonly string[];
  /** Open TCP connections right now (keep-alive sockets included). */
  readonly connections: () => number;
  /** Resolves once a request to `/_/hold` is waiting (at once if one already is). */
  readonly held: () => Promise<void>;
  /** Answer every waiting `/_/hold` request with its echo. */
  readonly release: () => void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Start a server answering every request with a JSON echo of it. Special paths (matched at the end, under `/_/` so real documents never hit them): `/_/status/<n>`
 * answers with that status, `/redirect/<n>` redirects n times before echoing, `/bytes` answers binary,
 * `/text` answers text/plain, `/goto?to=<url>` (or `/goto/<30x>?to=`) answers 307 (or that status) to that URL, `/empty` answers 204, `/slow` never answers, `/stall` sends half a body,
 * `/hold` answers when the test calls `release()`.
 */
export async function startEchoServer(host = '127.0.0.1'): Promise<EchoServer> {
  let received = 0;
  const seen: string[] = [];
  let holding: Array<() => void> = [];
  let onHeld: Array<() => void> = [];
  const server: Server = createServer(async (req, res) => {
    received++;
    seen.push(`${req.method} ${req.url}`);
    const body = await readBody(req);
    const url = req.url ?? '/';
    const [path = '/', rawQuery = ''] = url.split(/\?(.*)/s);
    // Special endpoints match the end of the path, so they work under any server base path.
    const redirect = /^(.*)\/_\/redirect\/(\d+)$/.exec(path);
    if (redirect && Number(redirect[2]) > 0) {
      const next = `${redirect[1]}/_/redirect/${Number(redirect[2]) - 1}${rawQuery ? `?${rawQuery}` : ''}`;
      return res.writeHead(302, { location: next }).end();
    }
    const goto = /\/_\/goto(?:\/(30[1-8]))?$/.exec(path);
    if (goto) {
      const location = decodeURIComponent(rawQuery.replace(/^to=/, ''));
      return res.writeHead(Number(goto[1] ?? 307), { location }).end();
    }
    if (path.endsWith('/_/slow')) return;
    if (path.endsWith('/_/stall'))
      return res.writeHead(200, { 'content-type': 'application/json' }).write('{"partial":');
    if (path.endsWith('/_/empty')) return res.writeHead(204).end();
    if (path.endsWith('/_/bytes'))
      return res
        .writeHead(200, { 'content-type': 'application/octet-stream' })
        .end(Buffer.from([0, 1, 2, 255]));
    if (path.endsWith('/_/text'))
      return res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('hello ✓');
    const status = /\/_\/status\/(\d{3})$/.exec(path);
    const echo: Echo = {
      method: req.method ?? '',
      path,
      rawQuery,
      headers: req.headers,
      cookies: req.headers.cookie ?? '',
      body: body.toString('utf8'),
      bodyBase64: body.toString('base64'),
    };
    const answer = () => {
      if (!res.headersSent)
        res.writeHead(status ? Number(status[1]) : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(echo));
    };
    if (!path.endsWith('/_/hold')) return answer();
    holding.push(answer);
    for (const notify of onHeld) notify();
    onHeld = [];
  });
  const sockets = new Set<unknown>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    count: () => received,
    seen: () => [...seen],
    connections: () => sockets.size,
    held: () =>
      holding.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => onHeld.push(resolve)),
    release: () => {
      const waiting = holding;
      holding = [];
      for (const answer of waiting) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
