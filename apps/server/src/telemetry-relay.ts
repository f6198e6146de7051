import type { PackedSpan } from '@cyrnel/core';
import { type SpanContext, TraceFlags } from '@opentelemetry/api';
import { hrTimeDuration, millisToHrTime, TraceState } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

/**
 * A finished span as it reached the exporter thread (`packSpan` of `@cyrnel/core`: from the main
 * thread or a gateway worker thread), as the SDK's exporters read it, with this server's resource;
 * undefined when its ids are malformed.
 */
export function readableOf(span: PackedSpan, resource: Resource): ReadableSpan | undefined {
  const [name, kind, traceId, spanId, flags, traceState, parentSpanId, parentRemote] = span;
  const [, , , , , , , , startMs, endMs, attributes, events, code, message, scopeName, scopeVersion] = span;
  if (!HEX32.test(traceId) || !HEX16.test(spanId)) return undefined;
  const traceFlags = flags & TraceFlags.SAMPLED;
  const own: SpanContext = {
    traceId,
    spanId,
    traceFlags,
    ...(traceState ? { traceState: new TraceState(traceState) } : {}),
  };
  const parent: SpanContext | undefined =
    parentSpanId && HEX16.test(parentSpanId)
      ? { traceId, spanId: parentSpanId, traceFlags, isRemote: parentRemote === 1 }
      : undefined;
  const startTime = millisToHrTime(startMs);
  const endTime = millisToHrTime(Math.max(startMs, endMs));
  return {
    name,
    kind,
    spanContext: () => own,
    ...(parent ? { parentSpanContext: parent } : {}),
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    status: message ? { code, message } : { code },
    attributes: { ...attributes },
    links: [],
    events: events.map(([eventName, timeMs, eventAttributes]) => ({
      name: eventName,
      time: millisToHrTime(timeMs),
      attributes: { ...eventAttributes },
    })),
    ended: true,
    resource,
    instrumentationScope: scopeVersion ? { name: scopeName, version: scopeVersion } : { name: scopeName },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
