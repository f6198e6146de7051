import type { RelayedSpan } from '@cyrnel/core';
import { type SpanContext, TraceFlags } from '@opentelemetry/api';
import { hrTimeDuration, millisToHrTime, TraceState } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

/**
 * A span finished in a gateway worker thread as the SDK's exporters read it, with this server's
 * resource; undefined when its ids are malformed.
 */
export function readableOf(span: RelayedSpan, resource: Resource): ReadableSpan | undefined {
  if (!HEX32.test(span.traceId) || !HEX16.test(span.spanId)) return undefined;
  const traceFlags = span.traceFlags & TraceFlags.SAMPLED;
  const own: SpanContext = {
    traceId: span.traceId,
    spanId: span.spanId,
    traceFlags,
    ...(span.traceState ? { traceState: new TraceState(span.traceState) } : {}),
  };
  const parent: SpanContext | undefined =
    span.parentSpanId && HEX16.test(span.parentSpanId)
      ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags, isRemote: span.parentRemote === true }
      : undefined;
  const startTime = millisToHrTime(span.startMs);
  const endTime = millisToHrTime(Math.max(span.startMs, span.endMs));
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => own,
    ...(parent ? { parentSpanContext: parent } : {}),
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    status: span.status,
    attributes: { ...span.attributes },
    links: [],
    events: span.events.map((event) => ({
      name: event.name,
      time: millisToHrTime(event.timeMs),
      attributes: { ...event.attributes },
    })),
    ended: true,
    resource,
    instrumentationScope: span.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
