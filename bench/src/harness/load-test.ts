import autocannon from 'autocannon';

/** What one autocannon run at one concurrency gave. */
export interface LoadResult {
  readonly perSecond: number;
  readonly ok: number;
  readonly errors: number;
  readonly detail: string;
}

/** Posts `body` to `url` from `connections` connections for `seconds`; counts 2xx per second and errors. */
export async function loadTest(
  url: string,
  body: string,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections,
    duration: seconds,
    timeout: 30,
  });
  const ok = result['2xx'];
  const errors = result.errors + result.timeouts + result.non2xx;
  return {
    perSecond: ok / result.duration,
    ok,
    errors,
    detail: `${ok} ok, ${errors} errors (${result.non2xx} non-2xx, ${result.timeouts} timeouts); request latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
  };
}
