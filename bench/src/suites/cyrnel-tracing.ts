import { Worker } from 'node:worker_threads';
import { createCyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { threadsCpuMs, treeCpuMs } from '../cyrnel/proc-memory.ts';
import { startServerProcess } from '../cyrnel/server-process.ts';
import { compare } from '../harness/compare.ts';
import { timeOnce } from '../harness/measure.ts';
import type { Resources } from '../harness/resources.ts';
import { summarize } from '../harness/stats.ts';
import { sequentialCallsProgram } from '../programs.ts';
import type { SuiteContext } from './suite-context.ts';

const SERVICE = 'upstream';
/** The tracing-off row the tracing-on row is set against (measured in the same part, alternately). */
export const TRACING_OFF = 'cyrnel: 1,000 sequential tool calls, tracing off (beside tracing on)';
/** Chains measured on each server, at least (one server's run alternates with the other's). */
const MIN_REPS = 3;
/** The tracing-off row of server CPU per call. */
export const TRACING_OFF_CPU = "cyrnel: server's CPU per tool call, tracing off (beside tracing on)";
/** The tracing-off row of the server's main thread's CPU per call. */
export const TRACING_OFF_MAIN_CPU =
  "cyrnel: server main thread's CPU per tool call, tracing off (beside tracing on)";

/**
 * The collector's thread: an HTTP server that counts the spans of each export (protobuf, the
 * server's default, by walking the messages' lengths; JSON by its \`"spanId"\` keys) and reports
 * the total.
 */
const COLLECTOR_THREAD = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
let spans = 0;
// The payloads of field \`no\` of a protobuf message (OTLP uses wire types 0, 1, 2 and 5 only).
function fields(buffer, no) {
  const found = [];
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = buffer[at++];
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0 || at >= buffer.length) return value;
    }
  };
  while (at < buffer.length) {
    const tag = varint();
    const wire = tag & 7;
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = varint();
      if (tag >>> 3 === no) found.push(buffer.subarray(at, at + length));
      at += length;
    } else break;
  }
  return found;
}
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    if (request.headers['content-type'] === 'application/x-protobuf') {
      // ExportTraceServiceRequest.resource_spans (1) > ResourceSpans.scope_spans (2) > ScopeSpans.spans (2)
      for (const resource of fields(body, 1))
        for (const scope of fields(resource, 2)) spans += fields(scope, 2).length;
      parentPort.postMessage({ spans });
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      return;
    }
    for (let at = body.indexOf('"spanId"'); at >= 0; at = body.indexOf('"spanId"', at + 8)) spans++;
    parentPort.postMessage({ spans });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

/**
 * A collector on 127.0.0.1 that takes every OTLP/HTTP export and counts its spans, in a thread of
 * its own: a collector runs apart from the upstream (which lives on the bench's main thread), so
 * its work never delays the traced server's upstream answers and not the other's.
 */
export async function startCollector(resources: Resources): Promise<{ url: string; spans(): number }> {
  let spans = 0;
  const thread = new Worker(COLLECTOR_THREAD, { eval: true });
  resources.defer(async () => {
    await thread.terminate();
  });
  const port = await new Promise<number>((resolve, reject) => {
    thread.once('error', reject);
    thread.on('message', (message: { port?: number; spans?: number }) => {
      if (message.port !== undefined) resolve(message.port);
      if (message.spans !== undefined) spans = message.spans;
    });
  });
  thread.unref();
  return { url: `http://127.0.0.1:${port}`, spans: () => spans };
}

/**
 * What tracing costs on the tool-call chain: two servers, one tracing to a collector on loopback
 * (`--otel`), one not, each with the upstream installed; 1,000 sequential calls in one process,
 * measured on each in turn (so both see the same machine), the tracing one set against the other
 * (target ≤ 1.05×).
 */
export async function runCyrnelTracingCost(ctx: SuiteContext): Promise<void> {
  const { config, report, upstream } = ctx;
  ctx.log('cyrnel: the cost of tracing');
  const collector = await startCollector(ctx.resources);
  const off = await startServerProcess(ctx.resources);
  const on = await startServerProcess(ctx.resources, { CYRNEL_OTEL: collector.url });
  try {
    const processes = [off, on];
    const servers = processes.map((server) => createCyrnelApi(server.url));
    const code = sequentialCallsProgram(SERVICE, 1_000);
    for (const api of servers) {
      await api.post('/services', {
        id: SERVICE,
        adapter: 'openapi',
        definition: upstream.openapi,
        enabled: true,
      });
      const check = await api.run(code, 120_000);
      if ((check.output as { sum?: number } | undefined)?.sum !== 499_500)
        throw new Error(`the tool-call chain returned ${JSON.stringify(check.output)}`);
    }
    const samples: [number[], number[]] = [[], []];
    // The server process's own CPU (every thread; its sandbox children apart), per server.
    const cpu = [0, 0];
    // Its main thread's alone: what the calls wait on (the exporter thread's work is not).
    const mainCpu = [0, 0];
    const reps = Math.max(MIN_REPS, config.chainReps);
    for (let rep = 0; rep < reps; rep++) {
      // Alternating which goes first, so neither always follows the other's garbage.
      const order = rep % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) {
        const api = servers[index] as (typeof servers)[number];
        const pid = (processes[index] as (typeof processes)[number]).pid;
        const before = treeCpuMs(pid).mainMs;
        const mainBefore = threadsCpuMs(pid, 'MainThread');
        samples[index]?.push((await timeOnce(() => api.run(code, 120_000))).ms);
        cpu[index] = (cpu[index] ?? 0) + treeCpuMs(pid).mainMs - before;
        mainCpu[index] = (mainCpu[index] ?? 0) + threadsCpuMs(pid, 'MainThread') - mainBefore;
      }
    }
    report.add({
      section: 'tool calls',
      metric: TRACING_OFF,
      unit: 'ms',
      stats: summarize(samples[0]),
      note: `${reps} chains on a server without tracing, alternating with the tracing server's (the baseline of the next row)`,
    });
    compare(report, {
      section: 'tool calls',
      metric: 'cyrnel: 1,000 sequential tool calls, tracing on',
      unit: 'ms',
      stats: summarize(samples[1]),
      baseline: TRACING_OFF,
      label: 'tracing off',
      maxRatio: 1.05,
      target: '≤ 1.05×',
      note: `--otel to a collector on loopback: a span per run, per tool call and per upstream request, batched over OTLP/HTTP with protobuf bodies (${collector.spans()} spans received)`,
    });
    const calls = reps * 1_000;
    report.add({
      section: 'tool calls',
      metric: TRACING_OFF_CPU,
      unit: 'ms',
      value: (cpu[0] ?? 0) / calls,
      note: `user+system CPU of the server process (all its threads) over ${calls} sequential calls`,
    });
    compare(report, {
      section: 'tool calls',
      metric: "cyrnel: server's CPU per tool call, tracing on",
      unit: 'ms',
      value: (cpu[1] ?? 0) / calls,
      baseline: TRACING_OFF_CPU,
      label: 'tracing off',
      note: 'the same, with the spans made and exported (the exporter thread included; less noisy than wall time on a busy machine)',
    });
    report.add({
      section: 'tool calls',
      metric: TRACING_OFF_MAIN_CPU,
      unit: 'ms',
      value: (mainCpu[0] ?? 0) / calls,
      note: `user+system CPU of the server's main thread alone over ${calls} sequential calls`,
    });
    compare(report, {
      section: 'tool calls',
      metric: "cyrnel: server main thread's CPU per tool call, tracing on",
      unit: 'ms',
      value: (mainCpu[1] ?? 0) / calls,
      baseline: TRACING_OFF_MAIN_CPU,
      label: 'tracing off',
      note: 'the same: the spans recorded and handed over in batches; the export runs on the exporter thread',
    });
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}
