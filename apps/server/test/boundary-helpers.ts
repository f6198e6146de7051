import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

/** A response read whole by {@link rawRequest}. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request with exactly the headers given (`Host` and `Origin` included, which fetch will not
 * forge), over `node:http` to a loopback server.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, method, path, headers, agent: false, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    // No answer (or no end of it) in time: cut the connection, as a client giving up would. The
    // socket's idle timeout alone would never fire on a stream that keeps sending (a followed log).
    const giveUp = () => req.destroy(new Error(`no answer within ${timeoutMs} ms`));
    const deadline = setTimeout(giveUp, timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('error', reject);
    req.on('timeout', giveUp);
    req.end(body);
  });
}

/**
 * Open `path` as an event stream on a raw socket that never reads: the server sees a client whose
 * receive window fills up. Resolves once the status line arrived (or the socket closed first).
 */
export function openUnreadStream(
  baseUrl: string,
  path: string,
): Promise<{ socket: Socket; head: string; first: string; closed: Promise<void> }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      const first = chunk.toString('latin1');
      resolve({ socket, head: first.split('\r\n')[0] ?? '', first, closed });
    });
    socket.once('close', () => resolve({ socket, head: '', first: '', closed }));
  });
}
