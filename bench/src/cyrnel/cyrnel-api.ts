/** The few HTTP calls the bench makes to cyrnel, with fetch (the same client as the floors). */
export interface CyrnelApi {
  readonly url: string;
  /** `POST /processes {code, wait:true}`; throws unless the process exits with `success`. */
  run(code: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** `POST <path>` with a JSON body; throws on a non-2xx answer. */
  post(path: string, body: unknown): Promise<unknown>;
  /** `PATCH <path>` with a JSON Patch; throws on a non-2xx answer. */
  patch(path: string, operations: readonly unknown[]): Promise<unknown>;
  /** `GET <path>`; throws on a non-2xx answer. */
  get(path: string): Promise<unknown>;
}

// Long enough for a 1,000-call chain on a slow machine; a hung server must not hang the bench.
const REQUEST_TIMEOUT_MS = 180_000;

async function json(res: Response, what: string): Promise<unknown> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 300)}`);
  return text === '' ? null : JSON.parse(text);
}

/** A client of the server at `url`. */
export function createCyrnelApi(url: string): CyrnelApi {
  const send = async (method: 'POST' | 'PATCH', path: string, body: unknown) =>
    json(
      await fetch(`${url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }),
      `${method} ${path}`,
    );
  const post = (path: string, body: unknown) => send('POST', path, body);
  return {
    url,
    post,
    patch: (path, operations) => send('PATCH', path, operations),
    get: async (path) =>
      json(await fetch(`${url}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }), `GET ${path}`),
    async run(code, timeoutMs) {
      const body = timeoutMs === undefined ? { code, wait: true } : { code, wait: true, timeoutMs };
      const proc = (await post('/processes', body)) as Record<string, unknown>;
      if (proc.exitState !== 'success') {
        throw new Error(
          `process ended ${String(proc.exitState)}: ${String(proc.error ?? proc.stderr ?? '')}`,
        );
      }
      return proc;
    },
  };
}
