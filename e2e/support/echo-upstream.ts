import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from './free-port';
import { answers, startProgram } from './program';

/** An HTTP echo upstream: `/anything/...` answers what it received, `/status/:code` that status. */
export interface EchoUpstream {
  /** Base URL. */
  readonly url: string;
  /** Which program serves it. */
  readonly kind: 'httpbin' | 'node';
  /** What it printed (httpbin's access log; empty for the node server). */
  output(): string;
  /** Stop it. */
  stop(): Promise<void>;
}

/** The shape of httpbin's `/anything` answer that the tests read. */
export interface EchoBody {
  method: string;
  url: string;
  args: Record<string, string | string[]>;
  form: Record<string, string | string[]>;
  headers: Record<string, string>;
  json: unknown;
  data: string;
}

const PYTHONS = ['/usr/bin/python3', 'python3'];
/** The system python that `scripts/ci-system-deps.sh` installs `python3-httpbin` for. */
const SYSTEM_PYTHON = '/usr/bin/python3';

/** Whether `python` can import httpbin. */
function importsHttpbin(python: string): boolean {
  return spawnSync(python, ['-c', 'import httpbin.core'], { stdio: 'ignore' }).status === 0;
}

/**
 * Whether the run must use httpbin rather than the node fallback: on CI (the `CI` variable
 * set) when Debian's httpbin is importable by the system python and the fallback was not
 * forced. A CI that could not install it keeps the fallback; one that did must use it, so a
 * broken detection cannot silently downgrade the suite.
 */
export function httpbinRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return (
    env.CI !== undefined && env.CI !== '' && env.CYRNEL_E2E_ECHO !== 'node' && importsHttpbin(SYSTEM_PYTHON)
  );
}

/**
 * Debian's `python3-httpbin` when some python can import it (scripts/ci-system-deps.sh installs
 * it), else a node:http server answering the same shape, so the suite runs either way.
 * `CYRNEL_E2E_ECHO=node` forces the node server (to exercise the fallback).
 */
export async function startEchoUpstream(): Promise<EchoUpstream> {
  if (process.env.CYRNEL_E2E_ECHO === 'node') return startNodeEcho();
  const python = PYTHONS.find(importsHttpbin);
  if (python === undefined) return startNodeEcho();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const program = await startProgram({
    name: 'httpbin',
    command: python,
    args: ['-m', 'httpbin.core', '--host', '127.0.0.1', '--port', String(port)],
    ready: answers(`${url}/get`),
  });
  return {
    url,
    kind: 'httpbin',
    output: program.output,
    stop: async () => {
      await program.stop();
    },
  };
}

async function startNodeEcho(): Promise<EchoUpstream> {
  const server = createServer(async (req, res) => {
    const target = new URL(req.url ?? '/', 'http://127.0.0.1');
    const status = /^\/status\/(\d{3})$/.exec(target.pathname);
    if (status) {
      res.writeHead(Number(status[1]), { 'content-type': 'text/plain' }).end('status echoed\n');
      return;
    }
    const data = await readBody(req);
    const type = req.headers['content-type'] ?? '';
    const body: EchoBody = {
      method: req.method ?? '',
      url: `http://${req.headers.host}${req.url}`,
      args: multiDict(target.searchParams),
      form: type.startsWith('application/x-www-form-urlencoded') ? multiDict(new URLSearchParams(data)) : {},
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(',') : (value ?? ''),
        ]),
      ),
      json: type.includes('json') ? safeJson(data) : null,
      data: type.startsWith('application/x-www-form-urlencoded') ? '' : data,
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    kind: 'node',
    output: () => '',
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// httpbin's rule: a key seen once maps to a string, a repeated key to the list of its values.
function multiDict(params: URLSearchParams): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    result[key] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return result;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
