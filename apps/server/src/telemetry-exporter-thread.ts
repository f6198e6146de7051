// The exporter thread of tracing: built as its own entry (`dist/telemetry-exporter-thread.js`) and
// started by `startExporterThread`. It takes finished spans in batches (from the main thread, and
// straight from the egress gateway's worker threads over ports the main thread hands it) and sends
// them with the official SDK's batch processor and OTLP/HTTP exporter (protobuf, or JSON when asked),
// so that the encoding and the requests to the collector never run on the main thread.
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { PackedSpan } from '@cyrnel/core';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import {
  type ExporterSettings,
  type FromExporter,
  type ToExporter,
  warnOnlyDiagnostics,
} from './telemetry-exporter-protocol';
import { readableOf } from './telemetry-relay';

const port = parentPort;
if (!port) throw new Error('telemetry-exporter-thread.js runs as a worker thread of the server');
const settings = workerData as ExporterSettings;
const post = (message: FromExporter) => port.postMessage(message);

const warn = (error: unknown) =>
  post({ t: 'warn', message: (error instanceof Error ? error.message : String(error)).slice(0, 500) });
setGlobalErrorHandler(warn);
warnOnlyDiagnostics(warn);

const resource = resourceFromAttributes(settings.resource).merge(
  detectResources({ detectors: [envDetector] }),
);
const processor = new BatchSpanProcessor({
  exporter:
    settings.protocol === 'http/json'
      ? new JsonExporter({ url: settings.url })
      : new ProtobufExporter({ url: settings.url }),
  ...settings.batch,
});

/** Hand a batch to the SDK's processor (a malformed span is dropped). */
const take = (batch: readonly PackedSpan[]) => {
  for (const packed of batch) {
    try {
      const readable = readableOf(packed, resource);
      if (readable) processor.onEnd(readable);
    } catch {
      // Not a span: dropped.
    }
  }
};

/** The gateway workers' ports, open. */
const ports = new Set<MessagePort>();
/** Take what the gateway workers sent before now (their last spans at a close come first). */
const drain = () => {
  for (const own of ports) {
    for (let message = receiveMessageOnPort(own); message; message = receiveMessageOnPort(own))
      if (Array.isArray(message.message)) take(message.message as PackedSpan[]);
  }
};

port.on('message', (received: ToExporter) => {
  if (Array.isArray(received)) {
    take(received as readonly PackedSpan[]);
    return;
  }
  const message = received as Exclude<ToExporter, readonly PackedSpan[]>;
  switch (message.t) {
    case 'port': {
      const own = message.port;
      ports.add(own);
      own.on('message', (batch: unknown) => {
        if (Array.isArray(batch)) take(batch as PackedSpan[]);
      });
      own.once('close', () => ports.delete(own));
      // A gateway worker's port never keeps this thread up.
      own.unref();
      return;
    }
    case 'flush':
    case 'shutdown': {
      drain();
      const done = message.t === 'flush' ? processor.forceFlush() : processor.shutdown();
      done.catch(warn).finally(() => post({ t: 'done', id: message.id }));
      return;
    }
    default:
      return;
  }
});
