import { ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { createRelayTracerProvider } from './relay-tracer';
import type { RelayedSpan } from './relayed-span';
import { carrierOf, contextOf, spanContextOf } from './trace-carrier';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('trace carriers', () => {
  it('read a W3C traceparent and tracestate into a remote span, and write them back', () => {
    const span = spanContextOf({ traceparent: PARENT, tracestate: 'vendor=1' });
    expect(span).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    expect(carrierOf(contextOf({ traceparent: PARENT, tracestate: 'vendor=1' }))).toEqual({
      traceparent: PARENT,
      tracestate: 'vendor=1',
    });
  });

  it('refuse what is not a valid traceparent: the context stays as it was', () => {
    for (const traceparent of [
      undefined,
      42,
      '',
      '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      `${PARENT}-extra`,
    ])
      expect(contextOf({ traceparent })).toBe(ROOT_CONTEXT);
    expect(contextOf(null)).toBe(ROOT_CONTEXT);
    expect(carrierOf(ROOT_CONTEXT)).toBeUndefined();
  });
});

describe('the relay tracer of worker threads', () => {
  it('records a child of a sampled parent and relays it once ended; a span of an unsampled trace only carries it on', () => {
    const relayed: RelayedSpan[] = [];
    const tracer = createRelayTracerProvider((span) => relayed.push(span)).getTracer('scope', '1.0.0');
    const span = tracer.startSpan(
      'GET',
      { attributes: { 'http.request.method': 'GET' } },
      contextOf({ traceparent: PARENT }),
    );
    span.setAttribute('http.response.status_code', 200);
    span.end();
    expect(relayed).toHaveLength(1);
    expect(relayed[0]).toMatchObject({
      name: 'GET',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
      parentRemote: true,
      attributes: { 'http.request.method': 'GET', 'http.response.status_code': 200 },
      scope: { name: 'scope', version: '1.0.0' },
    });
    const unsampled = tracer.startSpan(
      'GET',
      {},
      contextOf({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' }),
    );
    expect(unsampled.isRecording()).toBe(false);
    expect(unsampled.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    unsampled.end();
    expect(relayed).toHaveLength(1);
    expect(trace.getSpanContext(ROOT_CONTEXT)).toBeUndefined();
  });
});
