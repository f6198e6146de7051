import { ROOT_CONTEXT } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { createRelayTracerProvider, honoursPresetSpanIds, PRESET_SPAN_ID } from './relay-tracer';
import type { RelayedSpan } from './relayed-span';

describe('the relay tracer of the gateway workers', () => {
  it('gives every span its own valid ids, across refills of the random pool', () => {
    const sent: RelayedSpan[] = [];
    const tracer = createRelayTracerProvider((span) => sent.push(span)).getTracer('test');
    // 4 KiB of random bytes serve 170 root spans (24 bytes each): 1,000 refill it several times.
    for (let i = 0; i < 1_000; i++) tracer.startSpan('GET', {}, ROOT_CONTEXT).end();
    expect(sent).toHaveLength(1_000);
    for (const span of sent) {
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.traceId).not.toMatch(/^0+$/);
      expect(span.spanId).not.toMatch(/^0+$/);
    }
    expect(new Set(sent.map((span) => span.spanId)).size).toBe(1_000);
    expect(new Set(sent.map((span) => span.traceId)).size).toBe(1_000);
  });

  it('takes a span id drawn before the span (a kept call’s), and refuses one that is not an id', () => {
    const sent: RelayedSpan[] = [];
    const provider = createRelayTracerProvider((span) => sent.push(span));
    expect(honoursPresetSpanIds(provider)).toBe(true);
    expect(honoursPresetSpanIds({ getTracer: provider.getTracer })).toBe(false);
    const tracer = provider.getTracer('t');
    const preset = '00f067aa0ba902b7';
    expect(
      tracer.startSpan('kept', {}, ROOT_CONTEXT.setValue(PRESET_SPAN_ID, preset)).spanContext().spanId,
    ).toBe(preset);
    for (const hostile of ['0000000000000000', 'ZZf067aa0ba902b7', '00f067aa0ba902b7ff', 42])
      expect(
        tracer.startSpan('drawn', {}, ROOT_CONTEXT.setValue(PRESET_SPAN_ID, hostile)).spanContext().spanId,
      ).toMatch(/^(?!0{16})[0-9a-f]{16}$/);
  });

  it('keeps at most 64 attributes, still updating the ones it has', () => {
    const sent: RelayedSpan[] = [];
    const tracer = createRelayTracerProvider((span) => sent.push(span)).getTracer('test');
    const initial = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`a${i}`, i]));
    const span = tracer.startSpan('GET', { attributes: { ...initial, skipped: undefined } }, ROOT_CONTEXT);
    span.setAttributes({ b0: 0, b1: 1, b2: 2, b3: 3, b4: 4, b5: 5 });
    span.setAttribute('a0', 'updated');
    span.setAttribute('late', true);
    span.end();
    span.setAttribute('after', 1);
    const attributes = sent[0]?.attributes ?? {};
    expect(Object.keys(attributes)).toHaveLength(64);
    expect(attributes.a0).toBe('updated');
    expect(attributes.b3).toBe(3);
    expect(attributes).not.toHaveProperty('b4');
    expect(attributes).not.toHaveProperty('late');
    expect(attributes).not.toHaveProperty('skipped');
    expect(attributes).not.toHaveProperty('after');
  });

  it('gives one tracer per instrumentation and version, each naming its scope', () => {
    const sent: RelayedSpan[] = [];
    const provider = createRelayTracerProvider((span) => sent.push(span));
    const first = provider.getTracer('@cyrnel/adapter-openapi', '0.1.0');
    expect(provider.getTracer('@cyrnel/adapter-openapi', '0.1.0')).toBe(first);
    const other = provider.getTracer('@cyrnel/adapter-openapi');
    expect(other).not.toBe(first);
    first.startSpan('GET', {}, ROOT_CONTEXT).end();
    other.startSpan('GET', {}, ROOT_CONTEXT).end();
    expect(sent.map((span) => span.scope)).toEqual([
      { name: '@cyrnel/adapter-openapi', version: '0.1.0' },
      { name: '@cyrnel/adapter-openapi' },
    ]);
  });
});
