/** One GET of the upstream's echo, body parsed, as a plain Node script would do it. */
export async function fetchEcho(upstreamUrl: string, n: number): Promise<unknown> {
  const res = await fetch(`${upstreamUrl}/echo?n=${n}`);
  if (res.status !== 200) throw new Error(`upstream answered ${res.status}`);
  return res.json();
}

/** `count` sequential echo requests with fetch (keep-alive, as Node's fetch pools by default). */
export async function sequentialFetches(upstreamUrl: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await fetchEcho(upstreamUrl, i);
}

/** `count` echo requests at once with fetch and `Promise.all`. */
export async function parallelFetches(upstreamUrl: string, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, (_, i) => fetchEcho(upstreamUrl, i)));
}
