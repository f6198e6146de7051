/** The trivial program every latency benchmark runs: it only outputs, so its time is cyrnel's own. */
export const TRIVIAL = 'cyrnel.output({ ok: true });';

/** The same trivial program for the peer, whose code returns its result instead. */
export const PEER_TRIVIAL = 'return { ok: true };';

/** A cyrnel program making `count` sequential calls of the upstream's echo tool. */
export function sequentialCallsProgram(serviceId: string, count: number): string {
  return `const echo = cyrnel.services.${serviceId}.tools.echo;
let sum: number = 0;
for (let i = 0; i < ${count}; i++) {
  const r = await echo.invoke({ query: { n: i } });
  if (r.status !== 200) throw new Error('status ' + r.status);
  sum += r.body.n;
}
cyrnel.output({ ok: true, sum });`;
}

/** A cyrnel program making `count` calls of the echo tool at once (`Promise.all`). */
export function parallelCallsProgram(serviceId: string, count: number): string {
  return `const echo = cyrnel.services.${serviceId}.tools.echo;
const all = await Promise.all(Array.from({ length: ${count} }, (_, i) => echo.invoke({ query: { n: i } })));
if (all.some((r) => r.status !== 200)) throw new Error('a call failed');
cyrnel.output({ ok: true, count: all.length });`;
}

/** The peer's program for `count` sequential echo calls (its tool functions block until done). */
export function peerSequentialProgram(manual: string, count: number): string {
  return `let sum = 0;
for (let i = 0; i < ${count}; i++) sum += ${manual}.echo({ n: i }).n;
return { ok: true, sum };`;
}

/** The peer's program for `count` echo calls under `Promise.all`. */
export function peerParallelProgram(manual: string, count: number): string {
  return `const all = await Promise.all(Array.from({ length: ${count} }, async (_, i) => ${manual}.echo({ n: i })));
return { ok: true, count: all.length };`;
}
