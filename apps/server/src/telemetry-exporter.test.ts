import { Worker } from 'node:worker_threads';
import { contextOf, createRelayTracerProvider, packSpan, type RelayedSpan } from '@cyrnel/core';
import { ROOT_CONTEXT, type Span, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '../test/tracing-helpers';
import { createLogger } from './create-logger';
import { type ExporterThread, startExporterThread } from './telemetry-exporter';
import { samplerOf } from './telemetry-sdk';
import { type OtlpProtocol, telemetrySettings } from './telemetry-settings';

describe('the exporter thread of tracing (a real thread, a real OTLP/HTTP receiver)', () => {
  let receiver: OtlpReceiver;
  let exporter: ExporterThread | undefined;
  const lines: { level: string; msg: string }[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await exporter?.close();
    exporter = undefined;
    receiver.spans.length = 0;
    receiver.contentTypes.length = 0;
    lines.length = 0;
  });
  afterAll(async () => {
    await receiver.close();
  });

  const start = (protocol: OtlpProtocol = 'http/protobuf') => {
    exporter = startExporterThread({
      url: `${receiver.url}/v1/traces`,
      protocol,
      resource: { 'service.name': 'cyrnel-server', 'service.instance.id': 'host-a' },
      onExportError: (message) => lines.push({ level: 'warn', msg: `export: ${message}` }),
      logger: createLogger({ level: 'warn', write: (line) => lines.push(JSON.parse(line)) }),
    });
    const own = exporter;
    const tracer = createRelayTracerProvider((span) => own.add(span)).getTracer('@cyrnel/test', '1.0.0');
    return { exporter: own, tracer };
  };

  it('sends the spans of this thread in batches of 256, never one message per span', async () => {
    const { exporter, tracer } = start();
    const root = tracer.startSpan('root', {}, ROOT_CONTEXT);
    const parent = trace.setSpan(ROOT_CONTEXT, root);
    for (let i = 0; i < 299; i++) tracer.startSpan(`child ${i}`, { attributes: { i } }, parent).end();
    root.end();
    // 256 went at once; the other 44 wait for their batch's timer, or a flush.
    expect(exporter.stats()).toMatchObject({ batches: 1, spans: 256 });
    await exporter.flush();
    expect(exporter.stats()).toMatchObject({ batches: 2, spans: 300, restarts: 0, dropped: 0 });
    const spans = await receiver.until((all) => (all.length >= 300 ? all : undefined));
    const rootId = root.spanContext().spanId;
    expect(spans.filter((span) => span.parentSpanId === rootId)).toHaveLength(299);
    expect(spans.find((span) => span.name === 'child 7')?.attributes.i).toBe(7);
    expect(spans[0]?.scope).toBe('@cyrnel/test');
    expect(spans[0]?.resource).toMatchObject({
      'service.name': 'cyrnel-server',
      'service.instance.id': 'host-a',
    });
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/x-protobuf']));
  });

  it('sends the same spans as JSON when the protocol is http/json', async () => {
    const { exporter, tracer } = start('http/json');
    const root = tracer.startSpan('root', { attributes: { 'cyrnel.process.id': 7 } }, ROOT_CONTEXT);
    tracer
      .startSpan('child', { attributes: { ok: true, list: ['a', 'b'] } }, trace.setSpan(ROOT_CONTEXT, root))
      .end();
    root.end();
    await exporter.flush();
    const spans = await receiver.until((all) => (all.length >= 2 ? all : undefined));
    expect(receiver.contentTypes).toEqual(['application/json']);
    expect(spans.find((span) => span.name === 'child')).toMatchObject({
      parentSpanId: root.spanContext().spanId,
      attributes: { ok: true, list: ['a', 'b'] },
    });
    expect(spans.find((span) => span.name === 'root')?.attributes).toEqual({ 'cyrnel.process.id': 7 });
  });

  it('exports the spans that wait at close before it resolves (the last run’s at SIGTERM)', async () => {
    const { exporter, tracer } = start();
    for (let i = 0; i < 10; i++) tracer.startSpan(`last ${i}`, {}, ROOT_CONTEXT).end();
    await exporter.close();
    expect(receiver.spans.map((span) => span.name).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `last ${i}`).sort(),
    );
  });

  it('takes the spans of another thread over the port it hands out, with their parents', async () => {
    const { exporter, tracer } = start();
    const call = tracer.startSpan('execute_tool shop.getUser', {}, ROOT_CONTEXT);
    // What a gateway worker's adapter would record as the call's child, made here and packed.
    const made: RelayedSpan[] = [];
    createRelayTracerProvider((span) => made.push(span))
      .getTracer('@cyrnel/adapter-openapi')
      .startSpan('GET', {}, trace.setSpan(ROOT_CONTEXT, call))
      .end();
    call.end();
    const port = exporter.port();
    expect(port).toBeDefined();
    const thread = new Worker(
      `const { workerData } = require('node:worker_threads');
       workerData.port.postMessage(workerData.batch);
       workerData.port.close();`,
      { eval: true, workerData: { port, batch: made.map(packSpan) }, transferList: port ? [port] : [] },
    );
    await new Promise((resolve) => thread.once('exit', resolve));
    await exporter.flush();
    const spans = await receiver.until((all) => (all.length >= 2 ? all : undefined));
    const egress = spans.find((span) => span.scope === '@cyrnel/adapter-openapi');
    expect(egress).toMatchObject({
      name: 'GET',
      traceId: call.spanContext().traceId,
      parentSpanId: call.spanContext().spanId,
    });
  });

  it('replaces a thread that dies, with a warning; a worker’s port to it closes (it then sends through this thread)', async () => {
    const { exporter, tracer } = start();
    const port = exporter.port();
    const portClosed = new Promise((resolve) => port?.once('close', resolve));
    const first = exporter.thread;
    await first?.terminate();
    await portClosed;
    expect(exporter.thread).toBeDefined();
    expect(exporter.thread).not.toBe(first);
    expect(lines.some((line) => line.level === 'warn' && line.msg.includes('exporter thread stopped'))).toBe(
      true,
    );
    tracer.startSpan('after the crash', {}, ROOT_CONTEXT).end();
    await exporter.flush();
    await receiver.until((all) => all.find((span) => span.name === 'after the crash'));
    expect(exporter.stats().restarts).toBe(1);
  });

  it('stops replacing a thread that keeps dying, dropping spans instead; calls go on', async () => {
    const { exporter, tracer } = start();
    for (let i = 0; i < 4; i++) await exporter.thread?.terminate();
    expect(exporter.thread).toBeUndefined();
    expect(lines.some((line) => line.msg.includes('keeps stopping'))).toBe(true);
    const span: Span = tracer.startSpan('dropped', {}, ROOT_CONTEXT);
    span.end();
    await exporter.flush();
    expect(exporter.stats()).toMatchObject({ restarts: 3, dropped: 1 });
    expect(exporter.port()).toBeUndefined();
  });
});

describe('the light tracer of the main thread, with the SDK’s sampler', () => {
  it('samples as OTEL_TRACES_SAMPLER says: roots by ratio, children as their parent', () => {
    const settings = telemetrySettings('http://127.0.0.1:4318', {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    const sent: RelayedSpan[] = [];
    if (!settings) throw new Error('tracing is on with an endpoint');
    const tracer = createRelayTracerProvider((span) => sent.push(span), {
      sampler: samplerOf(settings.sampler),
    }).getTracer('test');
    const root = tracer.startSpan('root', {}, ROOT_CONTEXT);
    expect(root.isRecording()).toBe(false);
    expect(root.spanContext().traceFlags).toBe(0);
    root.end();
    const parent = '4bf92f3577b34da6a3ce929d0e0e4736';
    const sampled = tracer.startSpan(
      'sampled',
      {},
      contextOf({ traceparent: `00-${parent}-00f067aa0ba902b7-01` }),
    );
    const unsampled = tracer.startSpan(
      'unsampled',
      {},
      contextOf({ traceparent: `00-${parent}-00f067aa0ba902b7-00` }),
    );
    expect(sampled.isRecording()).toBe(true);
    expect(unsampled.isRecording()).toBe(false);
    expect(unsampled.spanContext().traceId).toBe(parent);
    sampled.end();
    unsampled.end();
    expect(sent.map((span) => [span.name, span.traceId, span.parentSpanId, span.parentRemote])).toEqual([
      ['sampled', parent, '00f067aa0ba902b7', true],
    ]);
  });
});
